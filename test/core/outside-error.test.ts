/**
 * How exceptions from outside code are described for the log: the class, V8's message only in
 * the shapes that name code, and where it was thrown; never a message that quotes data.
 */
import { describe, expect, it } from 'vitest';
import { describeOutsideError, outsideEventLabel } from '../../src/core/outside-error.ts';

const secret = 'plum-otter payload words';

/** What `work` throws. */
function thrown(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe('describeOutsideError', () => {
  it("keeps V8's messages that name code, and the file and line", () => {
    const missing = undefined as unknown as { entitlements: unknown[] };
    const described = describeOutsideError(thrown(() => missing.entitlements.reduce(() => 0)));
    expect(described).toMatch(/^TypeError: Cannot read properties of undefined \(reading 'entitlements'\) \(at core\/outside-error\.test\.ts:\d+\)$/);
    const entities = 'bold' as unknown as unknown[];
    expect(describeOutsideError(thrown(() => entities.find(Boolean)))).toMatch(/^TypeError: entities\.find is not a function \(at /);
  });

  it('leaves out messages that quote data, whatever the class', () => {
    const text = secret as unknown as Record<string, number>;
    const cases = [
      thrown(() => JSON.parse(secret)),
      thrown(() => {
        text.x = 1;
      }),
      thrown(() => 'x' in text),
      new Error(`handler failed on ${secret}`),
      new TypeError(`bad input: ${secret}`),
      new RangeError(secret),
    ];
    for (const error of cases) {
      const described = describeOutsideError(error);
      expect(described).not.toContain('plum-otter');
      expect(described).toMatch(/^(SyntaxError|TypeError|Error|RangeError)( \(at [^)]+\))?$/);
    }
  });

  it('names what was thrown when it is not an Error', () => {
    expect(describeOutsideError(secret)).toBe('a thrown string');
    expect(describeOutsideError(null)).toBe('a thrown null');
    expect(describeOutsideError({ text: secret })).toBe('a thrown object');
  });
});

describe('outsideEventLabel', () => {
  it("keeps a platform's event names and folds anything else into one label", () => {
    expect(outsideEventLabel('INTERACTION_CREATE')).toBe('INTERACTION_CREATE');
    expect(outsideEventLabel('app_rate_limited')).toBe('app_rate_limited');
    expect(outsideEventLabel('callback_query')).toBe('callback_query');
    expect(outsideEventLabel(secret)).toBe('other');
    expect(outsideEventLabel('x'.repeat(49))).toBe('other');
    expect(outsideEventLabel(42)).toBe('other');
  });
});

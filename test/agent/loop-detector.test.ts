import { describe, expect, it } from 'vitest';
import { canonicalJson, createLoopDetector, loopWarning, toolCallFingerprint } from '../../src/agent/loop-detector.ts';
import type { LoopDetector, LoopPattern } from '../../src/agent/loop-detector.ts';

type Call = [name: string, args: unknown];

const A: Call = ['read_file', { path: 'a.ts' }];
const B: Call = ['grep', { pattern: 'TODO' }];
const C: Call = ['shell', { command: 'npm test' }];

/** What `record` returned for each call, in order. */
function recordAll(detector: LoopDetector, calls: Call[]): (LoopPattern | undefined)[] {
  return calls.map(([name, args]) => detector.record(name, args));
}

describe('createLoopDetector', () => {
  it('reports three identical calls in a row, not two', () => {
    const results = recordAll(createLoopDetector(), [A, A, A]);
    expect(results.slice(0, 2)).toEqual([undefined, undefined]);
    expect(results[2]).toEqual({ length: 1, repetitions: 3, tools: ['read_file'] });
  });

  it('keeps reporting, with a growing count, while the loop goes on', () => {
    const results = recordAll(createLoopDetector(), [A, A, A, A, A]);
    expect(results.map((result) => result?.repetitions)).toEqual([undefined, undefined, 3, 4, 5]);
  });

  it('counts repetitions only within the window', () => {
    const results = recordAll(createLoopDetector(4), Array.from({ length: 8 }, () => A));
    expect(results.at(-1)).toEqual({ length: 1, repetitions: 4, tools: ['read_file'] });
  });

  it('ignores the order of argument keys but not their values', () => {
    const detector = createLoopDetector();
    detector.record('edit_file', { path: 'x', old_string: 'a', new_string: 'b' });
    detector.record('edit_file', { new_string: 'b', path: 'x', old_string: 'a' });
    expect(detector.record('edit_file', { old_string: 'a', new_string: 'b', path: 'x' })).toMatchObject({ length: 1 });

    const other = createLoopDetector();
    other.record('edit_file', { path: 'x', old_string: 'a', new_string: 'b' });
    other.record('edit_file', { path: 'x', old_string: 'a', new_string: 'b' });
    expect(other.record('edit_file', { path: 'x', old_string: 'a', new_string: 'c' })).toBeUndefined();
  });

  it('tells tools apart even with equal arguments', () => {
    expect(recordAll(createLoopDetector(), [['glob', { path: '.' }], ['list_dir', { path: '.' }], ['glob', { path: '.' }]])).toEqual([
      undefined,
      undefined,
      undefined,
    ]);
  });

  it('reports ABABAB (three rounds of two calls), not ABABA', () => {
    const results = recordAll(createLoopDetector(), [A, B, A, B, A, B]);
    expect(results.slice(0, 5).every((result) => result === undefined)).toBe(true);
    expect(results[5]).toEqual({ length: 2, repetitions: 3, tools: ['read_file', 'grep'] });
  });

  it('reports ABCABCABC, not ABCABC', () => {
    const results = recordAll(createLoopDetector(), [A, B, C, A, B, C, A, B, C]);
    expect(results.slice(0, 8).every((result) => result === undefined)).toBe(true);
    expect(results[8]).toEqual({ length: 3, repetitions: 3, tools: ['read_file', 'grep', 'shell'] });
  });

  it('finds a pattern after unrelated calls', () => {
    const D: Call = ['write_file', { path: 'b.ts', content: 'x' }];
    const results = recordAll(createLoopDetector(), [D, C, A, B, A, B, A, B]);
    expect(results.at(-1)).toEqual({ length: 2, repetitions: 3, tools: ['read_file', 'grep'] });
  });

  it('reports the shortest pattern when several fit', () => {
    expect(recordAll(createLoopDetector(), [A, A, A, A, A, A]).at(-1)).toMatchObject({ length: 1, repetitions: 6 });
  });

  it('cannot see a pattern longer than its window', () => {
    const results = recordAll(createLoopDetector(5), [A, B, A, B, A, B, A, B]);
    expect(results.every((result) => result === undefined)).toBe(true);
  });

  it('does not report varied work', () => {
    const work: Call[] = [
      ['list_dir', { path: '.' }],
      ['read_file', { path: 'package.json' }],
      ['grep', { pattern: 'createServer' }],
      ['read_file', { path: 'src/server.ts' }],
      ['edit_file', { path: 'src/server.ts', old_string: 'a', new_string: 'b' }],
      ['shell', { command: 'npm test' }],
      ['read_file', { path: 'src/server.ts', offset: 40 }],
      ['edit_file', { path: 'src/server.ts', old_string: 'c', new_string: 'd' }],
      ['shell', { command: 'npm test' }],
      ['read_file', { path: 'test/server.test.ts' }],
      ['edit_file', { path: 'test/server.test.ts', old_string: 'e', new_string: 'f' }],
      ['shell', { command: 'npm test' }],
      ['shell', { command: 'git diff' }],
    ];
    expect(recordAll(createLoopDetector(), work).every((result) => result === undefined)).toBe(true);
  });

  it('does not report two rounds of a rhythm or an interrupted repeat', () => {
    expect(recordAll(createLoopDetector(), [A, A, B, A, A, C, A, A]).every((result) => result === undefined)).toBe(true);
    expect(recordAll(createLoopDetector(), [A, B, A, B, C, A, B, A, B]).every((result) => result === undefined)).toBe(true);
    expect(recordAll(createLoopDetector(), [A, B, C, A, B, C, A, C, B]).every((result) => result === undefined)).toBe(true);
  });

  it('forgets everything on reset', () => {
    const detector = createLoopDetector();
    recordAll(detector, [A, A]);
    detector.reset();
    expect(detector.record(...A)).toBeUndefined();
    expect(detector.record(...A)).toBeUndefined();
    expect(detector.record(...A)).toMatchObject({ repetitions: 3 });
  });

  it('rejects a window that is not a positive integer', () => {
    expect(() => createLoopDetector(0)).toThrow(RangeError);
    expect(() => createLoopDetector(2.5)).toThrow(RangeError);
  });
});

describe('fingerprints', () => {
  it('writes canonical JSON with sorted keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: 2 }], c: undefined } })).toBe('{"a":{"d":[2,{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson(undefined)).toBe('undefined');
  });

  it('gives equal calls equal fingerprints and different calls different ones', () => {
    expect(toolCallFingerprint('grep', { a: 1, b: 2 })).toBe(toolCallFingerprint('grep', { b: 2, a: 1 }));
    expect(toolCallFingerprint('grep', { a: 1 })).not.toBe(toolCallFingerprint('grep', { a: 2 }));
    expect(toolCallFingerprint('grep', { a: 1 })).not.toBe(toolCallFingerprint('glob', { a: 1 }));
    expect(toolCallFingerprint('grep', { a: 1 })).toMatch(/^grep:[0-9a-f]{16}$/);
  });

  it('has no collisions over many similar argument sets', () => {
    const seen = new Set<string>();
    for (let index = 0; index < 20_000; index++) seen.add(toolCallFingerprint('read_file', { path: `src/file-${index}.ts` }));
    expect(seen.size).toBe(20_000);
  });
});

describe('loopWarning', () => {
  it('tells the model it repeats itself and should change approach', () => {
    expect(loopWarning({ length: 1, repetitions: 3, tools: ['read_file'] })).toBe(
      'You seem to be repeating yourself: you have made the same read_file call 3 times in a row with the same arguments. ' +
        'Repeating it will not give a different result; stop and change your approach.',
    );
    expect(loopWarning({ length: 2, repetitions: 4, tools: ['read_file', 'grep'] })).toContain(
      'the same sequence of calls (read_file, grep) 4 times in a row',
    );
  });
});

import { describe, expect, it } from 'vitest';
import { createDoomLoopGuard, createToolCallCap } from '../../src/guardrails/index.ts';
import { before, toolCall } from './helpers.ts';

describe('tool-call-cap', () => {
  it('blocks calls beyond the cap in one turn and starts over each turn', async () => {
    const cap = createToolCallCap({ maxPerTurn: 3 });
    const actions = async (count: number) => {
      const result: string[] = [];
      for (let index = 0; index < count; index++) result.push((await before(cap, toolCall(`tool${index}`))).action);
      return result;
    };
    expect(await actions(5)).toEqual(['allow', 'allow', 'allow', 'block', 'block']);
    cap.onTurnStart!();
    expect(await actions(4)).toEqual(['allow', 'allow', 'allow', 'block']);
    expect(await before(cap, toolCall('x'))).toEqual({
      action: 'block',
      reason:
        'this turn has reached its limit of 3 tool calls. Stop calling tools and answer with what you have; ' +
        'say what is left to do, and the person can ask you to continue.',
    });
  });

  it('defaults to 60 calls', async () => {
    const cap = createToolCallCap();
    for (let index = 0; index < 60; index++) expect((await before(cap, toolCall('shell', { index }))).action).toBe('allow');
    expect((await before(cap, toolCall('shell'))).action).toBe('block');
  });

  it('rejects a nonsensical cap', () => {
    expect(() => createToolCallCap({ maxPerTurn: -1 })).toThrow(RangeError);
  });
});

describe('doom-loop', () => {
  it('blocks the same call with identical arguments past the threshold, even with other calls between', async () => {
    const guard = createDoomLoopGuard({ threshold: 2 });
    const same = () => toolCall('read_file', { path: 'a.ts', offset: 1 });
    expect((await before(guard, same())).action).toBe('allow');
    expect((await before(guard, toolCall('read_file', { path: 'b.ts', offset: 1 }))).action).toBe('allow');
    expect((await before(guard, toolCall('grep', { path: 'a.ts', offset: 1 }))).action).toBe('allow');
    // Key order does not make a call different.
    expect((await before(guard, toolCall('read_file', { offset: 1, path: 'a.ts' }))).action).toBe('allow');
    expect(await before(guard, same())).toEqual({
      action: 'block',
      reason:
        'read_file has already been called 2 times this turn with exactly these arguments; calling it again will not give a different result. ' +
        'Change your approach, or tell the person what is blocking you.',
    });
    expect((await before(guard, toolCall('read_file', { path: 'b.ts', offset: 1 }))).action).toBe('allow');
    guard.onTurnStart!();
    expect((await before(guard, same())).action).toBe('allow');
  });

  it('defaults to a threshold of 4', async () => {
    const guard = createDoomLoopGuard();
    const actions: string[] = [];
    for (let index = 0; index < 6; index++) actions.push((await before(guard, toolCall('shell', { command: 'npm test' }))).action);
    expect(actions).toEqual(['allow', 'allow', 'allow', 'allow', 'block', 'block']);
  });
});

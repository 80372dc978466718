import { describe, expect, it } from 'vitest';
import { createDoomLoopGuard, createToolCallCap } from '../../src/guardrails/index.ts';
import { createRuleGuardrail } from '../../src/guardrails/rule-guardrail.ts';
import type { TurnContext } from '../../src/tools/tool.ts';
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

describe('counting guardrails shared by conversations', () => {
  // A profile's guardrails serve all its conversations: each turn counts its own calls.
  const turn = (sessionKey: string): TurnContext => ({ sessionKey, platform: 'telegram', senderId: '1', admin: false, scheduled: false });

  it("keep each turn's own count: another turn's calls and start touch it not", async () => {
    const cap = createToolCallCap({ maxPerTurn: 2 });
    const [a, b] = [turn('telegram:group:1'), turn('telegram:group:2')];
    const call = async (of: TurnContext) => (await cap.beforeCall!(toolCall('shell'), of))?.action ?? 'allow';
    expect([await call(a), await call(b), await call(a), await call(b)]).toEqual(['allow', 'allow', 'allow', 'allow']);
    // Another conversation's turn starts: the running turns' counts stay.
    cap.onTurnStart!();
    expect([await call(a), await call(b)]).toEqual(['block', 'block']);
    // A new turn (a new context) counts from nothing.
    expect(await call(turn('telegram:group:1'))).toBe('allow');
  });

  it('keep the doom-loop count and a rule file count per turn', async () => {
    const guard = createDoomLoopGuard({ threshold: 1 });
    const [a, b] = [turn('telegram:dm:1'), turn('telegram:dm:2')];
    const same = () => toolCall('read_file', { path: 'a.ts' });
    expect((await guard.beforeCall!(same(), a))?.action ?? 'allow').toBe('allow');
    expect((await guard.beforeCall!(same(), b))?.action ?? 'allow').toBe('allow');
    expect((await guard.beforeCall!(same(), a))?.action).toBe('block');
    const rules = createRuleGuardrail('limits', [{ tool: 'shell', decision: 'warn', maxCallsPerTurn: 1, reason: 'one shell a turn' }]);
    const after = async (of: TurnContext) => (await rules.afterCall!(toolCall('shell'), { content: [], isError: false }, of))?.action ?? 'allow';
    expect([await after(a), await after(b), await after(a)]).toEqual(['allow', 'allow', 'warn']);
  });
});

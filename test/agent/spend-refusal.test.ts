/**
 * A model call refused by the spend gate (a spending cap) ends the turn before the call: the
 * session goes back to where it was before the person's message, as after any turn that failed for
 * good, so the message can be answered again (an admin's "one more turn") without a second copy of
 * it or of the rounds before the refusal; the refused call never reaches the provider.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { SpendGate } from '../../src/agent/spend-gate.ts';
import { BudgetExhaustedError } from '../../src/core/errors.ts';
import { createHarness, type Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Lets `allowed` calls through, then refuses every one; counts what it saw and settled. */
function gateAllowing(allowed: number) {
  const seen = { reserved: 0, settled: 0 };
  const gate: SpendGate = {
    async reserve() {
      if (seen.reserved >= allowed) throw new BudgetExhaustedError('Not answered: a cap is reached.', { scope: 'conversation t', period: 'day', cap: 1, spent: 1 });
      seen.reserved++;
      return { settle: () => void seen.settled++ };
    },
  };
  return { gate, seen };
}

describe('a model call refused at a spending cap', () => {
  it('ends the turn before the call and rewinds the session to before the message, earlier rounds included', async () => {
    const { gate, seen } = gateAllowing(2);
    harness = await createHarness({ agent: { tools: [echoTool()], spend: gate } });
    harness.server.enqueue({ text: 'first answer' });
    await harness.agent.invoke('hello', { channel: 'telegram:1' });
    // The second turn's first round calls a tool; its next call is refused.
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] });
    await expect(harness.agent.invoke('loop please', { channel: 'telegram:1' })).rejects.toBeInstanceOf(BudgetExhaustedError);
    expect(harness.server.requests).toHaveLength(2);
    expect(seen).toEqual({ reserved: 2, settled: 2 });
    const roles = (await harness.agent.session()).buildContext().messages.map((message) => message.role);
    expect(roles).toEqual(['user', 'assistant']);
  });
});

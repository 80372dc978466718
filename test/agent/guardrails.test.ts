import { afterEach, describe, expect, it } from 'vitest';
import type { Guardrail } from '../../src/agent/guardrail.ts';
import { createHarness } from '../helpers/agent-harness.ts';
import type { Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const askForEcho: Guardrail = { name: 'careful', beforeCall: (call) => (call.name === 'echo' ? { action: 'ask', reason: 'echo needs a yes' } : undefined) };

function lastResults(h: Harness): string {
  return JSON.stringify(h.server.requests.at(-1)!.body.messages.at(-1));
}

describe('guardrails in the agent', () => {
  it('ask: pauses, runs the call when approved', async () => {
    const calls: string[] = [];
    const states: string[] = [];
    harness = await createHarness({
      agent: {
        tools: [echoTool(calls)],
        guardrails: [askForEcho],
        requestApproval: async ({ reason }) => {
          states.push(harness!.agent.state);
          return reason.includes('echo needs a yes');
        },
      },
    });
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'hi' } }] }, { text: 'done' });
    await harness.agent.invoke('go');
    expect(states).toEqual(['PAUSED']);
    expect(calls).toEqual(['hi']);
  });

  it('ask: a refusal, a missing approver and a timeout all deny', async () => {
    const calls: string[] = [];
    for (const requestApproval of [async () => false, undefined, () => new Promise<boolean>(() => {})]) {
      harness = await createHarness({ agent: { tools: [echoTool(calls)], guardrails: [askForEcho], requestApproval, approvalTimeoutMs: 20 } });
      harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'hi' } }] }, { text: 'done' });
      await harness.agent.invoke('go');
      expect(lastResults(harness)).toContain('not approved: careful: echo needs a yes');
      expect(harness.agent.state).toBe('IDLE');
      await harness.close();
      harness = undefined;
    }
    expect(calls).toEqual([]);
  });

  it('block, warn with replaced content, halt; a throwing guardrail allows', async () => {
    const calls: string[] = [];
    const guardrails: Guardrail[] = [
      { name: 'broken', beforeCall: () => { throw new Error('bug'); }, afterCall: () => { throw new Error('bug'); } },
      { name: 'no-x', beforeCall: (call) => (call.arguments.text === 'x' ? { action: 'block', reason: 'no x' } : undefined) },
      { name: 'redact', afterCall: (_call, result) => ({ action: 'warn', reason: 'redacted', content: result.content.map((part) => (part.type === 'text' ? { ...part, text: part.text.replace('secret', '[REDACTED]') } : part)) }) },
    ];
    harness = await createHarness({ agent: { tools: [echoTool(calls)], guardrails } });
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }, { name: 'echo', arguments: { text: 'secret' } }] }, { text: 'done' });
    await harness.agent.invoke('go');
    const results = lastResults(harness);
    expect(results).toContain('no-x: no x');
    expect(results).toContain('echo: [REDACTED]');
    expect(results).toContain('Guardrail warning: redact: redacted');
    expect(results).not.toContain('echo: secret');
    expect(calls).toEqual(['secret']);

    const halting: Guardrail = { name: 'stop', beforeCall: () => ({ action: 'halt', reason: 'enough' }) };
    await harness.close();
    harness = await createHarness({ agent: { tools: [echoTool(calls)], guardrails: [halting] } });
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'y' } }] }, { text: 'never asked' });
    const result = await harness.agent.invoke('go');
    expect(result.aborted).toBe(true);
    expect(harness.server.requests).toHaveLength(1);
  });

  it('resets per-turn state at the start of every turn', async () => {
    let starts = 0;
    harness = await createHarness({ agent: { guardrails: [{ name: 'counter', onTurnStart: () => void starts++ }] } });
    await harness.agent.invoke('one');
    await harness.agent.invoke('two');
    expect(starts).toBe(2);
  });
});

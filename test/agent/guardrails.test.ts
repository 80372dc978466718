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

  it('block, warn with replaced content, halt', async () => {
    const calls: string[] = [];
    const guardrails: Guardrail[] = [
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

  it('a guardrail that throws before a call blocks it, and reports which and why', async () => {
    const calls: string[] = [];
    const failures: unknown[] = [];
    // Its error quotes the call's arguments, as a careless guardrail's might: the model never sees it.
    const broken: Guardrail = { name: 'broken', beforeCall: (call) => { throw new Error(`cannot parse ${JSON.stringify(call.arguments)}`); } };
    harness = await createHarness({ agent: { tools: [echoTool(calls)], guardrails: [broken] } });
    harness.agent.subscribe((event) => void (event.type === 'guardrail_failed' && failures.push(event)));
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'PLANTED-7731' } }] }, { text: 'done' });
    await harness.agent.invoke('go');
    expect(calls).toEqual([]);
    const results = lastResults(harness);
    expect(results).toContain('broken: the guardrail failed while checking this call, so it was not run');
    expect(results).not.toContain('cannot parse');
    expect(failures).toEqual([expect.objectContaining({ guardrail: 'broken', stage: 'before', error: expect.stringContaining('cannot parse'), call: expect.objectContaining({ name: 'echo' }) })]);
  });

  it('a guardrail that throws after a call withholds its result from the model, and reports it', async () => {
    const calls: string[] = [];
    const failures: unknown[] = [];
    // A redactor that breaks on the very output it should clean: that output must not pass unredacted.
    const brokenRedactor: Guardrail = { name: 'redactor', afterCall: () => { throw new Error('pattern table not loaded'); } };
    const later: Guardrail = { name: 'later', afterCall: () => ({ action: 'warn', reason: 'never reached' }) };
    harness = await createHarness({ agent: { tools: [echoTool(calls)], guardrails: [brokenRedactor, later] } });
    harness.agent.subscribe((event) => void (event.type === 'guardrail_failed' && failures.push(event)));
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'sk-ant-PLANTED-secret' } }] }, { text: 'done' });
    await harness.agent.invoke('go');
    expect(calls).toEqual(['sk-ant-PLANTED-secret']);
    const results = lastResults(harness);
    expect(results).not.toContain('PLANTED');
    expect(results).toContain('The result of echo was withheld: the guardrail redactor failed while checking it');
    expect(results).not.toContain('never reached');
    expect(results).toContain('"is_error":true');
    expect(failures).toEqual([expect.objectContaining({ guardrail: 'redactor', stage: 'after', error: 'pattern table not loaded' })]);
  });

  it('resets per-turn state at the start of every turn', async () => {
    let starts = 0;
    harness = await createHarness({ agent: { guardrails: [{ name: 'counter', onTurnStart: () => void starts++ }] } });
    await harness.agent.invoke('one');
    await harness.agent.invoke('two');
    expect(starts).toBe(2);
  });
});

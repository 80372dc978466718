import { afterEach, describe, expect, it } from 'vitest';
import { createExtension } from '../../src/agent/extensions.ts';
import { planCut } from '../../src/agent/compaction.ts';
import type { SessionEntry } from '../../src/session/types.ts';
import { createHarness } from '../helpers/agent-harness.ts';
import type { Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

function entry(id: string, role: 'user' | 'assistant' | 'tool', text = 'x'.repeat(400)): SessionEntry {
  const message =
    role === 'tool'
      ? { role, content: [{ type: 'tool-result' as const, toolCallId: `c-${id}`, toolName: 'echo', content: [{ type: 'text' as const, text }], isError: false }] as [never] }
      : role === 'assistant'
        ? { role, content: [{ type: 'tool-call' as const, id: `c-${id}`, name: 'echo', arguments: { text } }] }
        : { role, content: [{ type: 'text' as const, text }] };
  return { id, parentId: null, timestamp: 0, type: 'message', message } as SessionEntry;
}

describe('planCut', () => {
  it('never cuts between a tool call and its result', () => {
    const branch = [entry('1', 'user'), entry('2', 'assistant'), entry('3', 'tool'), entry('4', 'assistant'), entry('5', 'tool'), entry('6', 'tool')];
    for (let keep = 1; keep < 1000; keep += 37) {
      const plan = planCut(branch, keep);
      if (!plan) continue;
      const kept = branch.find((candidate) => candidate.id === plan.firstKeptEntryId)!;
      expect(kept.type === 'message' && kept.message.role).not.toBe('tool');
    }
  });

  it('returns nothing when there is nothing before the kept part', () => {
    expect(planCut([entry('1', 'user')], 10)).toBeUndefined();
  });
});

describe('Agent compaction', () => {
  it('compacts after a turn that crosses the threshold and keeps recent messages verbatim', async () => {
    harness = await createHarness({
      agent: { modelInfo: { id: 'tiny', provider: 'anthropic', displayName: 'tiny', contextWindow: 10_000, maxOutput: 1_000, vision: false, reasoning: false, price: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 }, aliases: [] }, compaction: { reserveTokens: 2_000, keepRecentTokens: 10 } },
    });
    harness.server.enqueue({ text: 'first answer', usage: { input: 100, output: 10 } });
    await harness.agent.invoke('first question');
    expect(harness.types(['session_compact'])).toEqual([]);
    harness.server.enqueue({ text: 'second answer', usage: { input: 9_000, output: 10 } }, { text: 'THE SUMMARY' });
    await harness.agent.invoke('second question');
    expect(harness.types(['agent_end', 'session_compact'])).toEqual(['agent_end', 'agent_end', 'session_compact']);
    // The summary request carried the older conversation as a transcript.
    expect(JSON.stringify(harness.server.requests[2]!.body.messages)).toContain('first question');
    harness.server.enqueue({ text: 'third answer' });
    await harness.agent.invoke('third question');
    const sent = JSON.stringify(harness.server.requests.at(-1)!.body.messages);
    expect(sent).toContain('THE SUMMARY');
    expect(sent).not.toContain('first question');
    expect(sent).toContain('second answer');
  });

  it('keeps the transcript intact when the summary call fails', async () => {
    harness = await createHarness();
    harness.server.enqueue({ text: 'a1' }, { text: 'a2' });
    await harness.agent.invoke('q1');
    await harness.agent.invoke('q2');
    const before = (await harness.agent.session()).buildContext().messages;
    harness.server.enqueue({ error: { status: 500, message: 'boom' } });
    await expect(harness.agent.runCompaction()).rejects.toThrow();
    const after = (await harness.newAgent().session()).buildContext().messages;
    expect(after).toEqual(before);
    expect(harness.agent.phase).toBe('idle');
  });

  it('lets session_before_compact cancel or supply the summary', async () => {
    let mode: 'cancel' | 'supply' = 'cancel';
    const extension = await createExtension('compactor', (api) => {
      api.on('session_before_compact', () => (mode === 'cancel' ? { cancel: true } : { summary: 'FROM EXTENSION' }));
    });
    harness = await createHarness({ agent: { extensions: [extension], compaction: { keepRecentTokens: 1 } } });
    harness.server.enqueue({ text: 'a1' }, { text: 'a2' });
    await harness.agent.invoke('q1');
    await harness.agent.invoke('q2');
    expect(await harness.agent.runCompaction()).toBeUndefined();
    mode = 'supply';
    const requestsBefore = harness.server.requests.length;
    const entry = await harness.agent.runCompaction();
    expect(entry?.summary).toBe('FROM EXTENSION');
    expect(harness.server.requests.length).toBe(requestsBefore);
    const compacted = harness.events.find((event) => event.type === 'session_compact');
    expect(compacted).toMatchObject({ fromExtension: true });
  });

  it('keeps tool calls with their results across a compaction', async () => {
    harness = await createHarness({ agent: { tools: [echoTool()], compaction: { keepRecentTokens: 1 } } });
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'a' } }] }, { text: 'done' });
    await harness.agent.invoke('q1');
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'b' } }] }, { text: 'done again' });
    await harness.agent.invoke('q2');
    harness.server.enqueue({ text: 'SUMMARY' });
    await harness.agent.runCompaction();
    const roles = (await harness.agent.session()).buildContext().messages.map((message) => message.role);
    expect(roles[0]).toBe('user'); // the summary
    for (let i = 0; i < roles.length; i++) if (roles[i] === 'tool') expect(['assistant', 'tool']).toContain(roles[i - 1]);
  });
});

/**
 * Reasoning effort through the Agent, over the real SDKs and the fake model server: the requests
 * carry it, thinking is kept in the session, and (Anthropic) sent back signed on every later call,
 * also after a restart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { getModelInfo } from '../../src/llm/catalog.ts';
import type { AssistantMessage } from '../../src/llm/types.ts';
import { createHarness } from '../helpers/agent-harness.ts';
import type { Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function assistantMessages(h: Harness): Promise<AssistantMessage[]> {
  const tree = await h.sessions.open('test:conversation');
  return tree.buildContext().messages.filter((message): message is AssistantMessage => message.role === 'assistant');
}

describe('Agent with thinking on (Anthropic)', () => {
  it('asks for thinking, keeps the signed thinking in the session and resends it on every later call, across a restart', async () => {
    harness = await createHarness({ storeDriver: 'fs', agent: { tools: [echoTool()], reasoningEffort: 'medium' } });
    const { server } = harness;
    server.enqueue(
      { thinking: { text: 'I should echo first.', signature: 'sig-A' }, toolCalls: [{ id: 'toolu_1', name: 'echo', arguments: { text: 'a' } }] },
      { thinking: { text: 'The echo worked.', signature: 'sig-B' }, text: 'echoed a' },
    );
    const first = await harness.agent.invoke('echo a');
    expect(first.text).toBe('echoed a');
    expect(harness.events.some((event) => event.type === 'thinking_delta')).toBe(true);

    const [call1, call2] = server.requests;
    expect(call1?.body.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
    expect(call1?.body.max_tokens).toBeGreaterThan(8192);
    // Within the turn: the tool round goes back with its thinking block first, signature unchanged.
    expect(call2?.body.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
    expect(call2?.body.messages[1].content.slice(0, 2)).toEqual([
      { type: 'thinking', thinking: 'I should echo first.', signature: 'sig-A' },
      { type: 'tool_use', id: 'toolu_1', name: 'echo', input: { text: 'a' } },
    ]);

    const stored = await assistantMessages(harness);
    expect(stored.map((message) => message.content[0])).toEqual([
      { type: 'thinking', text: 'I should echo first.', signature: 'sig-A' },
      { type: 'thinking', text: 'The echo worked.', signature: 'sig-B' },
    ]);

    // A new agent over the same store (a restart): the next turn sends both thinking blocks back.
    const restarted = harness.newAgent();
    server.enqueue({ thinking: { text: 'Second turn.', signature: 'sig-C' }, text: 'again' });
    expect((await restarted.invoke('and again?')).text).toBe('again');
    const call3 = server.requests[2]?.body;
    expect(call3.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
    const thinkingBlocks = call3.messages.flatMap((message: { content: { type: string }[] }) => message.content.filter((block) => block.type === 'thinking'));
    expect(thinkingBlocks).toEqual([
      { type: 'thinking', thinking: 'I should echo first.', signature: 'sig-A' },
      { type: 'thinking', thinking: 'The echo worked.', signature: 'sig-B' },
    ]);
    expect(server.pending()).toBe(0);
  });

  it('asks for no thinking without an effort', async () => {
    harness = await createHarness();
    await harness.agent.invoke('hi');
    expect(harness.server.requests[0]?.body.thinking).toBeUndefined();
  });
});

describe('Agent with reasoning on (OpenAI)', () => {
  it('sends reasoning_effort on every call and keeps the reasoning in the session (Chat Completions takes none back)', async () => {
    harness = await createHarness({ protocol: 'openai', agent: { tools: [echoTool()], reasoningEffort: 'high' } });
    const { server } = harness;
    server.enqueue(
      { thinking: { text: 'Echo it.', signature: '' }, toolCalls: [{ id: 'call_1', name: 'echo', arguments: { text: 'b' } }] },
      { thinking: { text: 'Now answer.', signature: '' }, text: 'echoed b' },
    );
    expect((await harness.agent.invoke('echo b')).text).toBe('echoed b');
    expect(server.requests.map((recorded) => recorded.body.reasoning_effort)).toEqual(['high', 'high']);
    const stored = await assistantMessages(harness);
    expect(stored.map((message) => message.content[0])).toEqual([
      { type: 'thinking', text: 'Echo it.' },
      { type: 'thinking', text: 'Now answer.' },
    ]);
    expect(JSON.stringify(server.requests[1]?.body.messages)).not.toContain('Echo it.');
  });

  it('sends no reasoning_effort to a model the catalog says cannot reason', async () => {
    harness = await createHarness({ protocol: 'openai' });
    const agent = harness.newAgent({ model: 'gpt-4.1', modelInfo: getModelInfo('gpt-4.1'), reasoningEffort: 'high' });
    await agent.invoke('hi');
    expect(harness.server.requests[0]?.body).not.toHaveProperty('reasoning_effort');
  });
});

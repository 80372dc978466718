/**
 * Redacted thinking across turns: the encrypted `redacted_thinking` blocks Anthropic streams are
 * kept in the session and sent back unchanged, in place, on every later call, also after a
 * restart (the real SDK against the fake server, the session on disk).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const signature = 'EqQBCgIYAhIMsig==';
// Opaque data as the API sends it: the test checks it comes back byte for byte.
const encrypted = ['EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP+a\\/"quoted"', 'ErUBCkYIARgCIkDsecond=='];

describe('Agent: redacted thinking', () => {
  it('sends the redacted blocks back unchanged with the tool round, the next turn and after a restart', async () => {
    const calls: string[] = [];
    harness = await createHarness({ storeDriver: 'fs', agent: { tools: [echoTool(calls)], reasoningEffort: 'low' } });
    harness.server.enqueue(
      { thinking: { text: 'I will echo.', signature }, redactedThinking: encrypted, toolCalls: [{ id: 'toolu_r1', name: 'echo', arguments: { text: 'x' } }] },
      { text: 'echoed' },
      { text: 'second turn' },
      { text: 'after restart' },
    );
    expect((await harness.agent.invoke('echo x')).text).toBe('echoed');
    expect((await harness.agent.invoke('and now?')).text).toBe('second turn');
    const restarted = harness.newAgent();
    expect((await restarted.invoke('still there?')).text).toBe('after restart');

    const expected = [
      { type: 'thinking', thinking: 'I will echo.', signature },
      { type: 'redacted_thinking', data: encrypted[0] },
      { type: 'redacted_thinking', data: encrypted[1] },
      { type: 'tool_use', id: 'toolu_r1', name: 'echo', input: { text: 'x' } },
    ];
    const requests = harness.server.requests.slice(1);
    expect(requests).toHaveLength(3);
    for (const recorded of requests) {
      const assistant = recorded.body.messages[1];
      expect(assistant.role).toBe('assistant');
      expect(assistant.content.map((block: Record<string, unknown>) => {
        const { cache_control: _, ...rest } = block;
        return rest;
      })).toEqual(expected);
      for (const data of encrypted) expect(recorded.rawBody).toContain(JSON.stringify({ type: 'redacted_thinking', data }));
    }
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../src/tools/tool.ts';
import { repairOrphans, orphanResultText } from '../../src/agent/repair-orphans.ts';
import type { Message } from '../../src/llm/types.ts';
import { createHarness } from '../helpers/agent-harness.ts';
import type { Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const bigTool = defineTool({
  name: 'read_file',
  description: 'Returns a large text.',
  parameters: z.object({}),
  async execute() {
    return 'A'.repeat(60_000) + 'END';
  },
});

const slowTool = defineTool({
  name: 'slow',
  description: 'Never finishes on its own.',
  parameters: z.object({}),
  timeoutMs: 50,
  async execute(_args, context) {
    await new Promise((resolve) => context.signal.addEventListener('abort', resolve, { once: true }));
    return 'too late';
  },
});

describe('Engine through the Agent', () => {
  it('sends ephemeral messages with each call but never persists them', async () => {
    let n = 0;
    harness = await createHarness({
      agent: { tools: [echoTool()], getEphemeralMessages: () => [{ role: 'user', content: [{ type: 'text', text: `LIVE STATE ${++n}` }] }] },
    });
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] }, { text: 'done' });
    await harness.agent.invoke('look');
    expect(JSON.stringify(harness.server.requests[0]!.body.messages)).toContain('LIVE STATE 1');
    const second = JSON.stringify(harness.server.requests[1]!.body.messages);
    expect(second).toContain('LIVE STATE 2');
    expect(second).not.toContain('LIVE STATE 1');
    const stored = JSON.stringify((await harness.agent.session()).entries());
    expect(stored).not.toContain('LIVE STATE');
  });

  it("makes the turn's workspace before its first tool call, never for a turn without one, and refuses the call when it cannot", async () => {
    harness = await createHarness({ agent: { tools: [echoTool()] } });
    let prepared = 0;
    const turn = { sessionKey: 'telegram:group:-1', platform: 'telegram', senderId: '7', admin: false, scheduled: false, prepareWorkspace: () => void prepared++ };
    harness.server.enqueue({ text: 'no tool needed' });
    await harness.agent.invoke('hi', { turn });
    expect(prepared).toBe(0);
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }, { name: 'echo', arguments: { text: 'y' } }] }, { text: 'echoed' });
    await harness.agent.invoke('echo twice', { turn });
    expect(prepared).toBe(2);
    // A folder that cannot be made: the call is refused with why, and the tool does not run.
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'z' } }] }, { text: 'told' });
    await harness.agent.invoke('echo', { turn: { ...turn, prepareWorkspace: () => { throw new Error('EROFS: read-only file system'); } } });
    const sent = JSON.stringify(harness.server.requests.at(-1)!.body.messages.at(-1));
    expect(sent).toContain('Error: the workspace could not be made: EROFS: read-only file system');
    expect(sent).not.toContain('echo: z');
  });

  it('truncates what the model sees and keeps the full output in the tool end event', async () => {
    harness = await createHarness({ agent: { tools: [bigTool] } });
    harness.server.enqueue({ toolCalls: [{ name: 'read_file', arguments: {} }] }, { text: 'read it' });
    await harness.agent.invoke('read');
    const end = harness.events.find((event) => event.type === 'tool_execution_end');
    expect(end?.type === 'tool_execution_end' && end.output.length).toBe(60_003);
    const sent = JSON.stringify(harness.server.requests[1]!.body.messages.at(-1));
    expect(sent).toContain('[WARNING: Tool output was truncated.');
    expect(sent.length).toBeLessThan(55_000);
  });

  it('reports unknown tools, invalid arguments and timeouts to the model as error results', async () => {
    harness = await createHarness({ agent: { tools: [echoTool(), slowTool] } });
    harness.server.enqueue(
      {
        toolCalls: [
          { name: 'no_such_tool', arguments: {} },
          { name: 'echo', arguments: { text: 42 } },
          { name: 'slow', arguments: {} },
        ],
      },
      { text: 'handled' },
    );
    await harness.agent.invoke('try things');
    const results = harness.server.requests[1]!.body.messages.at(-1).content as { is_error: boolean; content: unknown }[];
    expect(results.map((result) => result.is_error)).toEqual([true, true, true]);
    const text = JSON.stringify(results);
    expect(text).toContain('Tool not found: no_such_tool');
    expect(text).toContain('invalid arguments for echo');
    expect(text).toContain('timed out after 50 ms');
  });

  it('stops at the tool-round limit', async () => {
    harness = await createHarness({ agent: { tools: [echoTool()], maxToolRounds: 2 } });
    harness.server.setDefault({ toolCalls: [{ name: 'echo', arguments: { text: 'again' } }] });
    await harness.agent.invoke('loop forever');
    expect(harness.server.requests).toHaveLength(2);
    expect(harness.types(['turn_limit'])).toEqual(['turn_limit']);
  });

  it('warns about a repeating pattern without stopping the loop', async () => {
    harness = await createHarness({ agent: { tools: [echoTool()] } });
    for (let i = 0; i < 3; i++) harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'same' } }] });
    harness.server.enqueue({ text: 'stopped by itself' });
    const result = await harness.agent.invoke('go');
    expect(result.text).toBe('stopped by itself');
    expect(harness.types(['loop_detection'])).toEqual(['loop_detection']);
    expect(JSON.stringify(harness.server.requests[3]!.body.messages.at(-1))).toContain('WARNING');
  });

  it('answers a dangling tool call before the next request', () => {
    const history: Message[] = [
      { role: 'user', content: [{ type: 'text', text: 'go' }] },
      { role: 'assistant', content: [{ type: 'tool-call', id: 'a', name: 'echo', arguments: {} }, { type: 'tool-call', id: 'b', name: 'echo', arguments: {} }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'a', toolName: 'echo', content: [{ type: 'text', text: 'ok' }], isError: false }] },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'zzz', toolName: 'echo', content: [{ type: 'text', text: 'stray' }], isError: false }] },
      { role: 'user', content: [{ type: 'text', text: 'next' }] },
    ];
    const repaired = repairOrphans(history);
    expect(repaired.map((message) => (message.role === 'tool' ? `tool:${message.content[0].toolCallId}` : message.role))).toEqual([
      'user',
      'assistant',
      'tool:a',
      'tool:b',
      'user',
    ]);
    expect(JSON.stringify(repaired[3])).toContain(orphanResultText);
    const clean = repaired.slice();
    expect(repairOrphans(clean)).toBe(clean);
  });
});

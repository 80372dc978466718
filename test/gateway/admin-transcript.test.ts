/**
 * A conversation's transcript as the console reads it, from a real session in a memory store:
 * tool calls carry their results (to be shown folded), reasoning is apart, a compaction and a
 * model change show as notes, long texts are cut, and a conversation without a session reads as
 * none without one being made for it.
 */
import { describe, expect, it } from 'vitest';
import { readTranscript } from '../../src/gateway/admin/transcript.ts';
import { SessionManager } from '../../src/session/session-manager.ts';
import { createStore } from '../../src/store/index.ts';

describe('readTranscript', () => {
  it('joins each tool call with its result and keeps reasoning apart', async () => {
    const store = createStore({ driver: 'memory' });
    const tree = await new SessionManager(store).open('telegram:dm:42');
    await tree.appendMessage({ role: 'user', content: [{ type: 'text', text: 'what is in the folder?' }, { type: 'image', mediaType: 'image/png', data: 'AAAA' }], timestamp: 1 });
    await tree.appendMessage({
      role: 'assistant',
      content: [
        { type: 'thinking', text: 'I should list it.' },
        { type: 'text', text: 'Let me look.' },
        { type: 'tool-call', id: 'call-1', name: 'list_dir', arguments: { path: '.' } },
      ],
      model: 'claude-sonnet-4-5',
      usage: { input: 10, output: 5, cacheRead: 100, cacheWrite: 0 },
      timestamp: 2,
    });
    await tree.appendMessage({ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call-1', toolName: 'list_dir', content: [{ type: 'text', text: 'README.md\nsrc/' }], isError: false }], timestamp: 3 });
    await tree.append({ type: 'model_change', model: 'claude-haiku-4-5' });
    await tree.appendMessage({ role: 'assistant', content: [{ type: 'text', text: 'x'.repeat(25_000) }], timestamp: 4 });

    const transcript = (await readTranscript(store, 'telegram:dm:42'))!;
    expect(transcript.sessionId).toBe(tree.id);
    expect(transcript.omitted).toBe(0);
    expect(transcript.items.map((item) => item.kind)).toEqual(['user', 'assistant', 'model', 'assistant']);
    expect(transcript.items[0]).toMatchObject({ kind: 'user', text: 'what is in the folder?\n[image image/png]' });
    expect(transcript.items[1]).toMatchObject({
      kind: 'assistant',
      text: 'Let me look.',
      thinking: 'I should list it.',
      model: 'claude-sonnet-4-5',
      tokens: 115,
      toolCalls: [{ name: 'list_dir', arguments: '{\n  "path": "."\n}', result: { text: 'README.md\nsrc/', isError: false } }],
    });
    expect(transcript.items[2]).toMatchObject({ kind: 'model', text: 'model changed to claude-haiku-4-5' });
    const long = transcript.items[3] as { text: string };
    expect(long.text.length).toBeLessThan(20_100);
    expect(long.text).toMatch(/\[\.\.\. 5,000 more characters not shown\]$/);

    const latest = (await readTranscript(store, 'telegram:dm:42', 2))!;
    expect(latest.omitted).toBe(3);
    expect(latest.items.map((item) => item.kind)).toEqual(['model', 'assistant']);
  });

  it('reads a conversation without a session as none, and makes none', async () => {
    const store = createStore({ driver: 'memory' });
    expect(await readTranscript(store, 'discord:dm:7')).toBeUndefined();
    expect(await store.list('session-index:')).toEqual([]);
  });
});

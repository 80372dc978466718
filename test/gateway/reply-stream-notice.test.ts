/**
 * The slow-provider notice in a streamed reply: shown at once as the preview (or below the text
 * already shown), gone once more of the answer arrives; never on platforms without edits (the
 * turn sends one message there instead).
 */
import { describe, expect, it, vi } from 'vitest';
import type { ChannelAdapter, ConversationAddress, OutboundMessage } from '../../src/channels/types.ts';
import { ReplyStream } from '../../src/gateway/reply-stream.ts';

/** An adapter that records what it is asked to do (the contract, not a platform). */
function recordingAdapter(edit = true) {
  const calls: { kind: 'send' | 'edit'; id: string; text: string }[] = [];
  let next = 0;
  const adapter: ChannelAdapter = {
    platform: 'test',
    capabilities: { edit, typing: false, buttons: false, threads: false, maxLength: 4096, editIntervalMs: 0, commandMenu: false, maxFileBytes: 0 },
    async start() {},
    async stop() {},
    async send(_address: ConversationAddress, message: OutboundMessage) {
      const id = String(++next);
      calls.push({ kind: 'send', id, text: message.text });
      return { ids: [id] };
    },
    async edit(_address: ConversationAddress, id: string, message: OutboundMessage) {
      calls.push({ kind: 'edit', id, text: message.text });
    },
    async typing() {},
  };
  return { adapter, calls };
}

const address = { platform: 'test', conversationId: '1' };

describe('ReplyStream.notice', () => {
  it('shows the notice as the preview, then the answer in its place', async () => {
    const { adapter, calls } = recordingAdapter();
    const previews: string[] = [];
    const stream = new ReplyStream(adapter, address, { onPreview: (id) => void previews.push(id) });
    stream.notice('Slow provider; still trying.');
    await vi.waitFor(() => expect(calls).toEqual([{ kind: 'send', id: '1', text: 'Slow provider; still trying. …' }]));
    // The notice is the preview: its id is noted like any preview's.
    expect(previews).toEqual(['1']);
    stream.push('Here is the answer, at last and in full.');
    await vi.waitFor(() => expect(calls.at(-1)).toEqual({ kind: 'edit', id: '1', text: 'Here is the answer, at last and in full. …' }));
    expect(await stream.close()).toBe('1');
  });

  it('goes below the text already shown, and never shows what could become [SILENT]', async () => {
    const { adapter, calls } = recordingAdapter();
    const stream = new ReplyStream(adapter, address);
    stream.push('Let me look that up for you in the docs.');
    await vi.waitFor(() => expect(calls).toHaveLength(1));
    stream.notice('Slow provider; still trying.');
    await vi.waitFor(() => expect(calls.at(-1)).toEqual({ kind: 'edit', id: '1', text: 'Let me look that up for you in the docs.\n\nSlow provider; still trying. …' }));

    const silent = recordingAdapter();
    const job = new ReplyStream(silent.adapter, address);
    job.push('[SIL');
    job.notice('Slow provider; still trying.');
    await vi.waitFor(() => expect(silent.calls).toEqual([{ kind: 'send', id: '1', text: 'Slow provider; still trying. …' }]));
    await job.close();
  });

  it('does nothing on a platform without edits', async () => {
    const { adapter, calls } = recordingAdapter(false);
    const stream = new ReplyStream(adapter, address);
    stream.notice('Slow provider; still trying.');
    expect(await stream.close()).toBeUndefined();
    expect(calls).toEqual([]);
  });
});

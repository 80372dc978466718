import { describe, expect, it, vi } from 'vitest';
import type { ChannelAdapter, ConversationAddress, OutboundMessage } from '../../src/channels/types.ts';
import { ReplyStream } from '../../src/gateway/reply-stream.ts';

/** An adapter that records what it is asked to do (the contract, not a platform). */
function recordingAdapter(options: { edit?: boolean; maxLength?: number; editIntervalMs?: number } = {}) {
  const calls: { kind: 'send' | 'edit'; id: string; text: string }[] = [];
  let next = 0;
  const adapter: ChannelAdapter = {
    platform: 'test',
    capabilities: { edit: options.edit ?? true, typing: false, buttons: false, threads: false, maxLength: options.maxLength ?? 4096, editIntervalMs: options.editIntervalMs ?? 0, commandMenu: false, maxFileBytes: 0 },
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
const settle = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('ReplyStream', () => {
  it('shows the reply early, grows it by edits and hands the preview id over', async () => {
    const { adapter, calls } = recordingAdapter();
    const stream = new ReplyStream(adapter, address);
    stream.push('The deploy window is on Tuesday mornings');
    await settle();
    stream.push(', between ten and noon.');
    await settle();
    const id = await stream.close();
    expect(calls[0]).toEqual({ kind: 'send', id: '1', text: 'The deploy window is on Tuesday mornings …' });
    expect(calls.at(-1)).toEqual({ kind: 'edit', id: '1', text: 'The deploy window is on Tuesday mornings, between ten and noon. …' });
    expect(id).toBe('1');
  });

  it("sends nothing more of the stream until the preview's id is on record", async () => {
    const { adapter, calls } = recordingAdapter();
    const order: string[] = [];
    let noted: (() => void) | undefined;
    const stream = new ReplyStream(adapter, address, {
      onPreview: (id) =>
        new Promise<void>((resolve) => {
          order.push(`preview ${id} heard`);
          noted = () => {
            order.push(`preview ${id} on record`);
            resolve();
          };
        }),
    });
    stream.push('The deploy window is on Tuesday mornings');
    await vi.waitFor(() => expect(noted).toBeDefined());
    // The stream goes on while the note is being written: its edit waits, and so does close().
    stream.push(', between ten and noon, unless the release train is late.');
    const closing = stream.close().then((id) => order.push(`closed with ${id}`));
    await settle();
    expect(calls.map((call) => call.kind)).toEqual(['send']);
    noted!();
    await closing;
    expect(order).toEqual(['preview 1 heard', 'preview 1 on record', 'closed with 1']);
  });

  it('never previews what could become [SILENT], nor a few characters', async () => {
    const { adapter, calls } = recordingAdapter();
    const stream = new ReplyStream(adapter, address);
    stream.push('[SIL');
    await settle();
    stream.push('ENT]');
    await settle();
    expect(await stream.close()).toBeUndefined();
    expect(calls).toEqual([]);
  });

  it('sends nothing on platforms without edits, and keeps previews within one message', async () => {
    const none = recordingAdapter({ edit: false });
    const quiet = new ReplyStream(none.adapter, address);
    quiet.push('x'.repeat(100));
    await settle();
    await quiet.close();
    expect(none.calls).toEqual([]);

    const small = recordingAdapter({ maxLength: 50 });
    const stream = new ReplyStream(small.adapter, address);
    stream.push('y'.repeat(200));
    await settle();
    await stream.close();
    expect(small.calls[0]!.text.length).toBeLessThanOrEqual(50);
  });

  it('ends a reply that grew in a draft as a preview message, but leaves the draft when the turn is left to a restart', async () => {
    for (const leaving of [false, true]) {
      const { adapter, calls } = recordingAdapter();
      const drafts: string[] = [];
      const show = async (_address: ConversationAddress, _draftId: number, text: string) => (drafts.push(text), true);
      const stream = new ReplyStream({ ...adapter, drafts: { intervalMs: 0, available: () => true, show } }, address);
      stream.push('A long answer that grows in its draft, still going');
      await vi.waitFor(() => expect(drafts.length).toBeGreaterThan(0));
      const previewId = await stream.close({ leaving });
      // Made a message, the restart's turn would have to finish the stopped turn's words.
      expect(previewId).toBe(leaving ? undefined : '1');
      expect(calls.map((call) => call.kind)).toEqual(leaving ? [] : ['send']);
    }
  });

  it('throttles edits to the platform interval', async () => {
    let now = 0;
    const { adapter, calls } = recordingAdapter({ editIntervalMs: 1_000 });
    const stream = new ReplyStream(adapter, address, { now: () => now });
    stream.push('a'.repeat(30));
    await settle();
    for (let i = 0; i < 5; i++) {
      stream.push('b');
      await settle();
    }
    // No time has passed on the injected clock: only the first send happened; later edits wait.
    expect(calls.map((call) => call.kind)).toEqual(['send']);
    now = 5_000;
    await stream.close();
  });
});

/**
 * Discord's MESSAGE_UPDATE as the adapter's reading gives it, from the corpus's recorded frames (an
 * embed unfurled, a thread flag set: no edit) and such a frame as the author's edit (an edit stamp,
 * new words): the message marked `edited`, with its own id, never a command. Through the real
 * adapter on the fake Discord, MESSAGE_UPDATE is listened to only with `editedMessages`.
 */
import type { GatewayMessageUpdateDispatchData } from 'discord.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { InboundMessage } from '../../src/channels/types.ts';
import { conversationOf } from '../../src/channels/discord/conversation.ts';
import { isEdit, toEditedMessage } from '../../src/channels/discord/edited-message.ts';
import { fill, samplesOf } from '../corpus/real-payloads.ts';
import { startDiscordHarness, type DiscordHarness } from './discord-harness.ts';

const ids = { USER: '200000000000000002', GUILD: '300000000000000003', CH_OPEN: '400000000000000004', BOT_ID: '600000000000000006', ISO_NOW: '2026-11-30T06:00:00.000Z' };
/** The MESSAGE_UPDATE of corpus sample `name`, its placeholders filled. */
function updateOf(name: string): GatewayMessageUpdateDispatchData {
  const sample = samplesOf('discord').find((candidate) => candidate.name === name)!;
  const [frame] = fill(sample.deliver, { ...ids, '*': () => '800000000000000008' }) as { d: GatewayMessageUpdateDispatchData }[];
  return frame!.d;
}
const context = { botId: ids.BOT_ID, fetchBytes: async () => new Uint8Array(), now: () => 1_800_000_000_000 };
const channel = conversationOf(ids.CH_OPEN, { kind: 'channel' });

describe('Discord edits', () => {
  it('are not an embed unfurled or a thread flag set', () => {
    for (const name of ['guild-message-update-embed-unfurl', 'message-update-has-thread-flag']) {
      expect(isEdit(updateOf(name))).toBe(false);
      expect(toEditedMessage(updateOf(name), channel, context)).toBeUndefined();
    }
  });

  it('come as the edited message, marked, with its new words, never a command', () => {
    const edited = { ...updateOf('message-update-has-thread-flag'), content: 'other user test, edited', edited_timestamp: '2026-11-30T06:01:00.000Z' };
    expect(toEditedMessage(edited, channel, context)).toMatchObject({ id: '1533095101817950311', edited: true, text: 'other user test, edited', dedupeKey: 'discord:edit:1533095101817950311:2026-11-30T06:01:00.000Z' });
    expect(toEditedMessage({ ...edited, content: '/new' }, channel, context)?.command).toBeUndefined();
  });
});

describe('Discord edits through the adapter', () => {
  let harness: DiscordHarness | undefined;
  afterEach(async () => {
    await harness?.adapter.stop();
    await harness?.close();
    harness = undefined;
  });

  /** Sends a message, an unfurl of it and an edit of it; resolves to what was handed over once a last message is. */
  async function sendAndEdit(editedMessages: boolean): Promise<InboundMessage[]> {
    harness = await startDiscordHarness({ adapter: { editedMessages } });
    const messages: InboundMessage[] = [];
    await harness.adapter.start({ onMessage: async (message) => void messages.push(message), onAction: async () => {} });
    const { discord } = harness;
    const sent = discord.messageCreate({ channelId: discord.world.channelId, content: 'what is 2 + 2?' }).payload;
    discord.dispatchRaw('MESSAGE_UPDATE', { ...sent, embeds: [{ type: 'link', url: 'https://example.com' }] } as unknown as Record<string, unknown>);
    discord.dispatchRaw('MESSAGE_UPDATE', { ...sent, content: 'what is 3 + 3?', edited_timestamp: new Date().toISOString() } as unknown as Record<string, unknown>);
    discord.messageCreate({ channelId: discord.world.channelId, content: 'last' });
    await vi.waitFor(() => expect(messages.at(-1)?.text).toBe('last'));
    return messages;
  }

  it('hands over the edit, marked, with editedMessages', async () => {
    const messages = await sendAndEdit(true);
    expect(messages.map((message) => [message.text, message.edited ?? false])).toEqual([['what is 2 + 2?', false], ['what is 3 + 3?', true], ['last', false]]);
    expect(messages[1]!.id).toBe(messages[0]!.id);
  });

  it('hands over no edit without it', async () => {
    expect((await sendAndEdit(false)).map((message) => message.text)).toEqual(['what is 2 + 2?', 'last']);
  });
});

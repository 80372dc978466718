/**
 * Discord's MESSAGE_UPDATE as the adapter's reading gives it, from the corpus's recorded frames (an
 * embed unfurled, a thread flag set: no edit) and such a frame as the author's edit (an edit stamp,
 * new words): the message marked `edited`, with its own id, never a command.
 */
import type { GatewayMessageUpdateDispatchData } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { conversationOf } from '../../src/channels/discord/conversation.ts';
import { isEdit, toEditedMessage } from '../../src/channels/discord/edited-message.ts';
import { fill, samplesOf } from '../corpus/real-payloads.ts';

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

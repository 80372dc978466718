/**
 * A Discord sticker, from the corpus's recorded gateway frames, as the adapter's reading gives it:
 * one line naming it after the message's words, so a sticker alone is something to answer too.
 */
import type { GatewayMessageCreateDispatchData } from 'discord.js';
import { describe, expect, it } from 'vitest';
import { conversationOf } from '../../src/channels/discord/conversation.ts';
import { toInboundMessage } from '../../src/channels/discord/inbound.ts';
import { fill, samplesOf } from '../corpus/real-payloads.ts';

const ids = { USER: '200000000000000002', GUILD: '300000000000000003', CH_OPEN: '400000000000000004', DM_USER: '500000000000000005', BOT_ID: '600000000000000006', ISO_NOW: '2026-11-30T06:00:00.000Z', SNOW: () => '700000000000000007' };
/** The MESSAGE_CREATE of corpus sample `name`, its placeholders filled. */
function messageOf(name: string): GatewayMessageCreateDispatchData {
  const sample = samplesOf('discord').find((candidate) => candidate.name === name)!;
  const [frame] = fill(sample.deliver, { ...ids, '*': () => '800000000000000008' }) as { d: GatewayMessageCreateDispatchData }[];
  return frame!.d;
}
const context = { botId: ids.BOT_ID, fetchBytes: async () => new Uint8Array(), now: () => 1_800_000_000_000 };
const channel = conversationOf(ids.CH_OPEN, { kind: 'channel' });

describe('Discord stickers', () => {
  it('come as a line after the words', () => {
    expect(toInboundMessage(messageOf('guild-text-and-sticker-open-channel'), channel, context)!.text).toBe('Message with text and sticker!\n[sticker sticker1]');
  });

  it('make a sticker alone a message to answer', () => {
    expect(toInboundMessage(messageOf('guild-sticker-only-open-channel'), channel, context)!.text).toBe('[sticker Yippee]');
  });
});

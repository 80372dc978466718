/**
 * What a Telegram message carries besides text, from the corpus's real payloads: sound and video
 * become files the gateway saves (with their type and a name); a sticker, die, location, venue,
 * poll, contact or story one short line of text after the caption.
 */
import type { Message } from 'grammy/types';
import { describe, expect, it } from 'vitest';
import { toInboundMessage } from '../../src/channels/telegram/inbound.ts';
import { fill, samplesOf } from '../corpus/real-payloads.ts';

const samples = samplesOf('telegram');
/** The message of corpus sample `name`, its placeholders filled with fixed values. */
function messageOf(name: string): Message {
  const sample = samples.find((candidate) => candidate.name === name);
  if (!sample) throw new Error(`no sample ${name}`);
  const [update] = fill(sample.deliver, { USER: 2002, ADMIN: 1001, OTHER: 3003, GROUP: -1007770001, NOW: 1_800_000_000, MSGID: () => 77, 'AGO:600': 1_799_999_400 }) as { message: Message }[];
  return update!.message;
}
const context = { bot: { id: 7000001, username: 'operator_test_bot' }, download: async () => new Uint8Array(), now: () => 1_800_000_000_000 };

describe('what a Telegram message shares besides text', () => {
  it.each([
    ['doc-audio', 'audio/mpeg', 'audio-77.mp3'],
    ['doc-voice', 'audio/ogg', 'voice-77.ogg'],
    ['video-no-caption-dm', 'video/mp4', 'video-77.mp4'],
  ])('%s comes as a file of its type', (name, mediaType, fileName) => {
    const inbound = toInboundMessage(1, messageOf(name), context)!;
    expect(inbound.attachments.map(({ kind, mediaType, name }) => ({ kind, mediaType, name }))).toEqual([{ kind: 'file', mediaType, name: fileName }]);
    expect(inbound.text).toBe('');
  });

  it.each([
    ['location-dm', '[location 26.09058, 127.47947]'],
    ['poll-quiz-dm', '[quiz "Test", options: 1 / 2]'],
    ['sticker-animated-dm', '[sticker 😡]'],
    ['dice-dart-dm', '[dice 🎯 rolled 4]'],
    ['group-video-sticker', '[sticker 🤖]'],
    ['group-contact', '[contact User, +79001231212]'],
    ['group-story-share', '[story from #TON Spin]'],
  ])('%s comes as one line of text', (name, line) => {
    const inbound = toInboundMessage(1, messageOf(name), context)!;
    expect(inbound.text).toBe(line);
    expect(inbound.attachments).toEqual([]);
  });

  it('names a venue, a live location and a plain poll, each on one line', () => {
    const base = messageOf('location-dm');
    const line = (extra: Record<string, unknown>) => toInboundMessage(1, { ...base, location: undefined, ...extra } as unknown as Message, context)!.text;
    expect(line({ venue: { title: 'Cafe\nCentral', address: 'Main St 1', location: { latitude: 52.52, longitude: 13.4 } } })).toBe('[venue Cafe Central, Main St 1 (52.52000, 13.40000)]');
    expect(line({ location: { latitude: 52.52, longitude: 13.4, live_period: 900 } })).toBe('[live location 52.52000, 13.40000]');
    expect(line({ poll: { type: 'regular', question: 'Lunch?', options: [{ text: 'yes' }, { text: 'no' }], is_closed: true } })).toBe('[poll "Lunch?", options: yes / no (closed)]');
  });

  it('puts the caption first, the shared line after it', () => {
    const message = { ...messageOf('location-dm'), caption: 'meet me here' } as Message;
    expect(toInboundMessage(1, message, context)!.text).toBe('meet me here\n[location 26.09058, 127.47947]');
  });
});

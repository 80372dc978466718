/**
 * A Telegram edit (`edited_message`, the corpus's Bot API docs example) as the adapter hands it
 * over: nothing unless the gateway asks for edits (`editedMessages: "reanswer"`), then a message
 * marked `edited` with its new text and its original id, never a command.
 */
import type { Update } from 'grammy/types';
import { describe, expect, it } from 'vitest';
import { toChannelEvent } from '../../src/channels/telegram/inbound.ts';
import { fill, samplesOf } from '../corpus/real-payloads.ts';

const [update] = fill(samplesOf('telegram').find((sample) => sample.name === 'doc-edited-message')!.deliver, { ADMIN: 1001, NOW: 1_800_000_000, MSGID: () => 77 }) as Update[];
const context = { bot: { id: 7000001, username: 'operator_test_bot' }, download: async () => new Uint8Array(), now: () => 1_800_000_000_000 };

describe('Telegram edits', () => {
  it('are no event unless asked for', () => {
    expect(toChannelEvent({ ...update!, update_id: 5 }, context)).toBeUndefined();
  });

  it('come as the edited message, marked, when asked for', () => {
    const event = toChannelEvent({ ...update!, update_id: 5 }, { ...context, editedMessages: true });
    expect(event && 'message' in event && event.message).toMatchObject({ id: '77', edited: true, text: 'Edited text', dedupeKey: 'telegram:update:5', sessionKey: 'telegram:dm:1001' });
  });

  it('never run a command', () => {
    const edit = { ...update!, update_id: 6, edited_message: { ...update!.edited_message!, text: '/new', entities: [{ type: 'bot_command', offset: 0, length: 4 }] } } as Update;
    const event = toChannelEvent(edit, { ...context, editedMessages: true });
    expect(event && 'message' in event && event.message.command).toBeUndefined();
  });
});

/**
 * Which platform events say the bot itself lost its place (Telegram's `my_chat_member`, Slack's
 * leave events): only those about the bot, and for Telegram only a real change of its status.
 */
import type { ChatMemberUpdated } from 'grammy/types';
import { describe, expect, it } from 'vitest';
import { toMembershipChange as slackChange } from '../../src/channels/slack/membership.ts';
import { toMembershipChange as telegramChange } from '../../src/channels/telegram/inbound.ts';

const bot = { id: 7_000_001, username: 'operator_test_bot' };

function update(chat: { id: number; type: string }, userId: number, before: string, after: string): ChatMemberUpdated {
  const user = { id: userId, is_bot: userId === bot.id, first_name: 'U' };
  return { chat, from: { id: 42, is_bot: false, first_name: 'P' }, date: 1, old_chat_member: { user, status: before }, new_chat_member: { user, status: after } } as unknown as ChatMemberUpdated;
}

describe('Telegram my_chat_member as a membership change', () => {
  const group = { id: -100123, type: 'supergroup' };
  const dm = { id: 42, type: 'private' };

  it('reads the bot removed from a group, and blocked and unblocked in a private chat', () => {
    expect(telegramChange(9, update(group, bot.id, 'member', 'left'), { bot })).toMatchObject({ kind: 'removed', platform: 'telegram', conversationIds: ['-100123'], label: 'telegram:group:-100123', dedupeKey: 'telegram:update:9' });
    expect(telegramChange(9, update(group, bot.id, 'administrator', 'kicked'), { bot })).toMatchObject({ kind: 'removed' });
    expect(telegramChange(9, update(dm, bot.id, 'member', 'kicked'), { bot })).toMatchObject({ kind: 'blocked', conversationIds: ['42'], label: 'telegram:dm:42' });
    expect(telegramChange(9, update(dm, bot.id, 'kicked', 'member'), { bot })).toMatchObject({ kind: 'unblocked', conversationIds: ['42'] });
  });

  it('ignores another user, a join, a change between two states outside, a channel', () => {
    expect(telegramChange(9, update(group, 555, 'member', 'kicked'), { bot })).toBeUndefined();
    expect(telegramChange(9, update(group, bot.id, 'left', 'member'), { bot })).toBeUndefined();
    expect(telegramChange(9, update(group, bot.id, 'left', 'kicked'), { bot })).toBeUndefined();
    expect(telegramChange(9, update(dm, bot.id, 'member', 'member'), { bot })).toBeUndefined();
    expect(telegramChange(9, update({ id: -100777, type: 'channel' }, bot.id, 'administrator', 'left'), { bot })).toBeUndefined();
  });
});

describe('Slack leave events as a membership change', () => {
  const identity = { userId: 'U0BOT0001' };

  it('reads channel_left, group_left and the bot leaving by member_left_channel', () => {
    expect(slackChange({ type: 'channel_left', channel: 'C1', event_ts: '1.2' }, identity)).toMatchObject({ kind: 'removed', platform: 'slack', conversationIds: ['C1'], label: 'slack:channel:C1' });
    expect(slackChange({ type: 'group_left', channel: 'G1' }, identity)).toMatchObject({ conversationIds: ['G1'] });
    expect(slackChange({ type: 'member_left_channel', user: 'U0BOT0001', channel: 'C2' }, identity)).toMatchObject({ conversationIds: ['C2'] });
  });

  it('ignores a person leaving and events without a channel', () => {
    expect(slackChange({ type: 'member_left_channel', user: 'U0PERSON1', channel: 'C2' }, identity)).toBeUndefined();
    expect(slackChange({ type: 'channel_left' }, identity)).toBeUndefined();
    expect(slackChange({ type: 'member_joined_channel', user: 'U0BOT0001', channel: 'C2' }, identity)).toBeUndefined();
  });
});

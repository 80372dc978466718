/**
 * What the adapters tell the gateway for group approval, through the real adapters against their
 * fakes: Telegram's `my_chat_member` and Slack's `member_joined_channel` as a `GroupJoin` naming
 * who added the bot (never for someone else's joining, a private chat, or the bot leaving), and
 * the group each group message belongs to (a Telegram group, a Slack channel; none in a DM).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Update } from 'grammy/types';
import type { GroupJoin, InboundMessage } from '../../src/channels/types.ts';
import { toGroupJoin } from '../../src/channels/slack/group-join.ts';
import { startSlackHarness, type SlackHarness } from './slack-harness.ts';
import { startTelegramHarness, type TelegramHarness } from './telegram-harness.ts';

const group = -1004242;
let stop: (() => Promise<void>) | undefined;

afterEach(async () => {
  await stop?.();
  stop = undefined;
});

/** A running adapter harness, with what it handed over. */
async function started<H extends TelegramHarness | SlackHarness>(harness: H): Promise<{ harness: H; joins: GroupJoin[]; messages: InboundMessage[] }> {
  const joins: GroupJoin[] = [];
  const messages: InboundMessage[] = [];
  await harness.adapter.start({ onMessage: async (message) => void messages.push(message), onAction: async () => {}, onGroupJoin: async (join) => void joins.push(join) });
  stop = async () => {
    await harness.adapter.stop();
    await harness.close();
  };
  return { harness, joins, messages };
}

describe('Telegram: the bot added to a group', () => {
  it("hands over my_chat_member when the bot joins or is made an administrator, naming who did it; nothing else", async () => {
    const { harness, joins, messages } = await started(await startTelegramHarness({ mode: 'polling' }));
    const { telegram } = harness;
    const ada = { id: 77, first_name: 'Ada', username: 'ada' };
    telegram.pushUpdate(telegram.botMembership({ chatId: group, chatType: 'group', chatTitle: 'The team', from: ada }));
    // Made an administrator where it was a member: handed over too (who did it may be an admin).
    telegram.pushUpdate(telegram.botMembership({ chatId: group, chatTitle: 'The team', from: ada, status: 'administrator', oldStatus: 'member' }));
    // Removed, and blocked in a private chat: nothing.
    telegram.pushUpdate(telegram.botMembership({ chatId: group, from: ada, status: 'left', oldStatus: 'administrator' }));
    telegram.pushUpdate(telegram.botMembership({ chatId: -1004343, from: ada, status: 'kicked' }));
    // A message after them all: once it is handed over, every update before it was dealt with.
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: 'hello all', from: ada }));
    await vi.waitFor(() => expect(messages).toHaveLength(1));
    expect(joins).toHaveLength(2);
    expect(joins[0]).toMatchObject({
      address: { platform: 'telegram', conversationId: String(group) },
      sessionKey: `telegram:group:${group}`,
      group: { kind: 'group', id: String(group), title: 'The team' },
      by: { id: '77', name: 'Ada', username: 'ada', isBot: false },
    });
    expect(joins[0]!.dedupeKey).toMatch(/^telegram:update:\d+$/);
    expect(joins[1]).toMatchObject({ group: { id: String(group) }, by: { id: '77' } });
    expect(messages[0]).toMatchObject({ scope: 'group', group: { kind: 'group', id: String(group), title: 'The team' } });
  });

  it("hands over a group's upgrade to a supergroup, naming the group it replaced", async () => {
    const { harness, joins } = await started(await startTelegramHarness({ mode: 'polling' }));
    const { telegram } = harness;
    // As Telegram posts it in the new supergroup (from its anonymous group bot).
    telegram.pushUpdate({
      update_id: 990_001,
      message: {
        message_id: 1,
        date: Math.floor(Date.now() / 1000),
        chat: { id: -1009990001, type: 'supergroup', title: 'The team' },
        from: { id: 1087968824, is_bot: true, first_name: 'Group', username: 'GroupAnonymousBot' },
        sender_chat: { id: -1009990001, type: 'supergroup', title: 'The team' },
        migrate_from_chat_id: -4990001,
      },
    } as unknown as Update);
    await vi.waitFor(() => expect(joins).toHaveLength(1));
    expect(joins[0]).toMatchObject({ sessionKey: 'telegram:group:-1009990001', group: { kind: 'group', id: '-1009990001', title: 'The team' }, movedFrom: { kind: 'group', id: '-4990001' }, movedFromSessionKey: 'telegram:group:-4990001' });
    expect(joins[0]!.by).toBeUndefined();
  });

  it('gives a direct message no group', async () => {
    const { harness, messages } = await started(await startTelegramHarness({ mode: 'polling' }));
    harness.telegram.pushUpdate(harness.telegram.textMessage({ chatId: 42, text: 'hi' }));
    await vi.waitFor(() => expect(messages).toHaveLength(1));
    expect(messages[0]!.scope).toBe('dm');
    expect(messages[0]!.group).toBeUndefined();
  });
});

describe('Slack: the bot invited to a channel', () => {
  it('hands over member_joined_channel for the bot, with its inviter; never for someone else', async () => {
    const { harness, joins, messages } = await started(await startSlackHarness());
    const { slack } = harness;
    const joined = (user: string, channel: string, inviter?: string) =>
      harness.post(slack.envelope({ type: 'member_joined_channel', user, channel, channel_type: 'C', team: slack.bot.teamId, ...(inviter ? { inviter } : {}), event_ts: '1700000000.000100' }));
    expect((await joined(slack.bot.userId, 'C0TEAM001', 'U0ADA0001')).status).toBe(200);
    expect((await joined('U0SOMEONE', 'C0TEAM001', 'U0ADA0001')).status).toBe(200);
    expect((await joined(slack.bot.userId, 'G0PRIVATE')).status).toBe(200);
    expect(joins).toEqual([
      { dedupeKey: 'slack:joined:C0TEAM001:1700000000.000100', address: { platform: 'slack', conversationId: 'C0TEAM001' }, sessionKey: 'slack:channel:C0TEAM001', group: { kind: 'channel', id: 'C0TEAM001' }, by: { id: 'U0ADA0001', isBot: false }, raw: expect.anything() },
      { dedupeKey: 'slack:joined:G0PRIVATE:1700000000.000100', address: { platform: 'slack', conversationId: 'G0PRIVATE' }, sessionKey: 'slack:channel:G0PRIVATE', group: { kind: 'channel', id: 'G0PRIVATE' }, raw: expect.anything() },
    ]);
    // A channel's messages name their channel as the group; a DM's none.
    await harness.post(slack.envelope(harness.messageEvent({ platform: 'slack', conversationId: 'C0TEAM001' }, 'hello')));
    await harness.post(slack.envelope(harness.messageEvent({ platform: 'slack', conversationId: 'D0ADA0001' }, 'hi')));
    expect(messages.map((message) => message.group)).toEqual([{ kind: 'channel', id: 'C0TEAM001' }, undefined]);
  });

  it('names no group for a direct message channel', () => {
    expect(toGroupJoin({ type: 'member_joined_channel', user: 'U0BOT', channel: 'D0DM00001', inviter: 'U0ADA' }, { userId: 'U0BOT' })).toBeUndefined();
    expect(toGroupJoin({ type: 'member_left_channel', user: 'U0BOT', channel: 'C0TEAM001' }, { userId: 'U0BOT' })).toBeUndefined();
  });
});

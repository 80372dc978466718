/**
 * Other bots and forwards, through each platform's real adapter and SDK against its fake, fed the
 * real payloads of the corpus (../shared/real-payloads): messages of bots, apps, webhooks and
 * Slackbot are not handed over unless the platform's `allowBots` is on (Slackbot never), and a
 * forward or shared message is handed over with its content after a line naming where it came
 * from. Each sample is followed by a person's message, handed over after it, so a sample that was
 * dropped is known to have been handled, not still on its way.
 */
import type { APIMessage } from 'discord.js';
import type { Update } from 'grammy/types';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { InboundMessage } from '../../src/channels/types.ts';
import { fillPayloads, realPayload } from '../helpers/real-payloads.ts';
import { startDiscordHarness, type DiscordHarness } from './discord-harness.ts';
import { startSlackHarness, type SlackHarness } from './slack-harness.ts';
import { startTelegramHarness, type TelegramHarness } from './telegram-harness.ts';

type Stoppable = { adapter: { stop(): Promise<void> }; close(): Promise<void> };
let running: Stoppable | undefined;
let messages: InboundMessage[];

afterEach(async () => {
  await running?.adapter.stop();
  await running?.close();
  running = undefined;
});

/** Waits until `count` messages are handed over. */
async function handedOver(count: number): Promise<InboundMessage[]> {
  await vi.waitFor(() => expect(messages.length).toBeGreaterThanOrEqual(count));
  return messages;
}

describe('Slack: other apps, Slackbot and shared messages', () => {
  const openChannel = 'C0OPEN001';
  const person = 'U0PERSON1';
  let harness: SlackHarness;

  async function start(allowBots?: boolean, botTurns?: number): Promise<SlackHarness> {
    harness = await startSlackHarness({ adapter: { ...(allowBots === undefined ? {} : { allowBots }), ...(botTurns === undefined ? {} : { botTurns }) } });
    running = harness;
    messages = [];
    await harness.adapter.start({ onMessage: async (message) => void messages.push(message), onAction: async () => {} });
    return harness;
  }

  /** Posts the sample's envelopes as Slack would, each answered 200. */
  async function deliver(name: string): Promise<void> {
    const { slack } = harness;
    const ids = { TEAM: slack.bot.teamId, SLACK_BOT: slack.bot.userId, S_USER: person, S_OTHER: 'U0OTHER01', C_OPEN: openChannel, C_MAIN: 'C0MAIN001', D_USER: 'D0PERSON1', D_SLACKBOT: 'D0SLACKBOT' };
    for (const envelope of fillPayloads(realPayload('slack', name), ids)) {
      const result = await harness.post({ kind: 'json', body: envelope as Record<string, unknown> });
      expect(result.status).toBe(200);
    }
  }

  async function personSays(text: string): Promise<void> {
    const result = await harness.post(harness.slack.envelope(harness.messageEvent({ platform: 'slack', conversationId: openChannel }, text, { from: { id: person } })));
    expect(result.status).toBe(200);
  }

  it("never hands over another app's bot_message, an app's message (bot_id) or Slackbot's notice in its DM", async () => {
    await start();
    const samples = ['channel-bot-message-subtype-open-channel', 'channel-circleci-app-message-open-channel', 'channel-github-app-notification', 'dm-from-slackbot', 'app-mention-blocks-files-from-bot-id', 'channel-own-bot-message-echo'];
    for (const name of samples) await deliver(name);
    await personSays('a person after the bots');
    expect((await handedOver(1)).map((message) => message.text)).toEqual(['a person after the bots']);
  });

  it("with allowBots hands over other apps' messages marked as bots, and Slackbot's still not", async () => {
    await start(true);
    await deliver('channel-bot-message-subtype-open-channel');
    await deliver('channel-circleci-app-message-open-channel');
    await deliver('dm-from-slackbot');
    await personSays('a person after the bots');
    const [reacji, circleci, last] = await handedOver(3);
    expect(messages).toHaveLength(3);
    expect(reacji).toMatchObject({ text: 'https://myworkspace.slack.com/archives/C07KTH1T4CQ/p1724954997876929', sender: { id: 'B07JWPS5Y5S', name: 'Reacji Channeler', isBot: true } });
    expect(circleci).toMatchObject({ text: 'CircleCI job failed.', sender: { id: 'U04130YGVK8', isBot: true } });
    expect(last!.text).toBe('a person after the bots');
  });

  it('with allowBots takes botTurns bots\' messages in a row per conversation; a person starts the count again; a retry counts once', async () => {
    await start(true, 2);
    const { slack } = harness;
    const ids = { TEAM: slack.bot.teamId, SLACK_BOT: slack.bot.userId, C_OPEN: openChannel };
    const appMessage = () => fillPayloads(realPayload('slack', 'channel-circleci-app-message-open-channel'), ids)[0] as Record<string, unknown>;
    const post = async (body: Record<string, unknown>) => expect((await harness.post({ kind: 'json', body })).status).toBe(200);
    const first = appMessage();
    await post(first);
    await post(first);
    await post(appMessage());
    await post(appMessage());
    await personSays('a person at last');
    await post(appMessage());
    // The retry of the first is handed over again (the gateway drops it by its dedupe key) without
    // counting; the third app message is not handed over; after the person's, one is again.
    expect(messages.map((message) => [message.dedupeKey === messages[0]!.dedupeKey, message.text, message.sender.isBot])).toEqual([
      [true, 'CircleCI job failed.', true],
      [true, 'CircleCI job failed.', true],
      [false, 'CircleCI job failed.', true],
      [false, 'a person at last', false],
      [false, 'CircleCI job failed.', true],
    ]);
  });

  it("hands over a forwarded message's content from its attachments, after where it came from and the sender's own words", async () => {
    await start();
    await deliver('channel-forwarded-message-open-channel');
    await deliver('channel-share-with-comment-open-channel');
    const [forward, share] = await handedOver(2);
    expect(forward).toMatchObject({ text: '[forwarded from another channel / lev]\n123', sender: { id: person, isBot: false }, scope: 'group' });
    expect(share!.text).toBe('hello check that out!\n\n[forwarded from another channel / lev]\nthis will be shared with a message');
    expect(share!.command).toBeUndefined();
  });

  it("hands over a shared message's files (nested in its attachment) with the message's own, downloaded with the bot token", async () => {
    await start();
    const { slack } = harness;
    const photo = slack.hostFile({ name: 'cat.png', mimetype: 'image/png', bytes: new Uint8Array([137, 80, 78, 71]) });
    const ids = { TEAM: slack.bot.teamId, SLACK_BOT: slack.bot.userId, S_USER: person, C_OPEN: openChannel };
    const envelope = fillPayloads(realPayload('slack', 'channel-forwarded-message-open-channel'), ids)[0] as { event: { attachments: Record<string, unknown>[] } };
    // The corpus's forward, its original message carrying a photo (Slack nests it in the attachment).
    envelope.event.attachments[0]!.files = [photo];
    expect((await harness.post({ kind: 'json', body: envelope as unknown as Record<string, unknown> })).status).toBe(200);
    const [forward] = await handedOver(1);
    expect(forward!.text).toBe('[forwarded from another channel / lev]\n123');
    expect(forward!.attachments).toMatchObject([{ kind: 'image', mediaType: 'image/png', name: 'cat.png', size: 4 }]);
    expect(await forward!.attachments[0]!.download()).toEqual(new Uint8Array([137, 80, 78, 71]));
  });

  it("with allowBots an app's attachment text is its content", async () => {
    await start(true);
    await deliver('channel-github-app-notification');
    const [github] = await handedOver(1);
    expect(github).toMatchObject({ text: 'Issue created by ldub (https://github.com/ldub)\n#2 test issue 2 (https://github.com/myorg/myrepo/issues/2)\nanother oneeeee', sender: { isBot: true } });
  });
});

describe('Telegram: bots, inline bots and forwards', () => {
  const user = 4242;
  const group = -1001234567890;
  let harness: TelegramHarness;

  async function start(allowBots?: boolean): Promise<TelegramHarness> {
    harness = await startTelegramHarness({ mode: 'polling', ...(allowBots === undefined ? {} : { adapter: { allowBots } }) });
    running = harness;
    messages = [];
    await harness.adapter.start({ onMessage: async (message) => void messages.push(message), onAction: async () => {} });
    return harness;
  }

  /** The sample's updates, filled in, changed by `adapt` (a copy's message). */
  function updatesOf(name: string, adapt: (message: Record<string, unknown>) => void = () => {}): Update[] {
    const ids = { USER: user, ADMIN: 7, OTHER: 5151, GROUP: group, BASICGROUP: -4242, FORUM: -1009999, CHANNEL: -1007777, BOT_ID: 1111, BOT_NAME: 'operator_test_bot' };
    return fillPayloads(realPayload('telegram', name), ids).map((update) => {
      adapt((update as { message: Record<string, unknown> }).message);
      return update as Update;
    });
  }

  /** A bot sender: the sample's person made a bot (a bot talking to ours in a DM). */
  const fromBot = (message: Record<string, unknown>) => {
    message.from = { ...(message.from as object), is_bot: true };
  };
  /** The sample's text sent through an inline bot (`via_bot`). */
  const viaBot = (message: Record<string, unknown>) => {
    message.via_bot = { id: 9090, is_bot: true, first_name: 'GIF', username: 'gif' };
  };

  it("never hands over a bot's message, one made with an inline bot, or an anonymous admin's (the GroupAnonymousBot account)", async () => {
    const { telegram } = await start();
    for (const update of [...updatesOf('text-single-digit', fromBot), ...updatesOf('text-cyrillic-emoji', viaBot), ...updatesOf('group-anonymous-admin-forward-origin-chat')]) telegram.pushUpdate(update);
    telegram.pushUpdate(telegram.textMessage({ chatId: user, text: 'a person after the bots' }));
    await handedOver(1);
    expect(messages.map((message) => message.text)).toEqual(['a person after the bots']);
  });

  it('with allowBots hands them over, marked as bots', async () => {
    const { telegram } = await start(true);
    for (const update of [...updatesOf('text-single-digit', fromBot), ...updatesOf('text-cyrillic-emoji', viaBot)]) telegram.pushUpdate(update);
    const [bot, inline] = await handedOver(2);
    expect(bot).toMatchObject({ text: '4', sender: { id: String(user), isBot: true } });
    expect(inline!.sender.isBot).toBe(true);
  });

  it('shows a forward after a line naming its origin, and never takes its text as a command', async () => {
    const { telegram } = await start();
    for (const update of [...updatesOf('doc-forwarded-from-user'), ...updatesOf('doc-forwarded-channel-odd-shape')]) telegram.pushUpdate(update);
    const [fromPerson, fromChannel] = await handedOver(2);
    expect(fromPerson).toMatchObject({ text: '[forwarded from Forward Firstname Forward Lastname]\n/start', sender: { id: String(user), isBot: false } });
    expect(fromPerson!.command).toBeUndefined();
    expect(fromChannel!.text).toBe('[forwarded from #Test channel]\n/start');
  });
});

describe('Discord: bots, webhooks and forwards', () => {
  let harness: DiscordHarness;

  async function start(allowBots?: boolean): Promise<DiscordHarness> {
    harness = await startDiscordHarness({ adapter: allowBots === undefined ? {} : { allowBots } });
    running = harness;
    messages = [];
    await harness.adapter.start({ onMessage: async (message) => void messages.push(message), onAction: async () => {} });
    return harness;
  }

  /** The sample's MESSAGE_CREATE payloads, filled in with the fake's world, changed by `adapt`. */
  function messagesOf(name: string, adapt: (message: Record<string, unknown>) => void = () => {}): APIMessage[] {
    const { discord } = harness;
    const ids = { USER: discord.world.person.id, CH_OPEN: discord.world.channelId, CH_MAIN: discord.world.channelId, D_USER: discord.world.dmChannelId, GUILD: discord.world.guildId, CDN: discord.origin, BOT_ID: discord.bot.id };
    return fillPayloads(realPayload('discord', name), ids).map((frame) => {
      const message = (frame as { d: Record<string, unknown> }).d;
      adapt(message);
      return message as unknown as APIMessage;
    });
  }

  /** The webhook's embed-only message with words of its own (a webhook that posts text). */
  const withContent = (message: Record<string, unknown>) => {
    message.content = 'Deploy finished';
  };

  it("never hands over a webhook's or another bot's message", async () => {
    const { discord } = await start();
    const fromOtherBot = (message: Record<string, unknown>) => {
      message.author = { ...(message.author as object), id: '777000777000777000', bot: true };
    };
    for (const message of [...messagesOf('guild-webhook-embed-open-channel', withContent), ...messagesOf('dm-text', fromOtherBot), ...messagesOf('guild-own-message-echo')]) discord.rawMessageCreate(message);
    // A person's message with `webhook_id: null` (as some clients and recorders write "no webhook"; the
    // echo's frame with its author made the person): a person's.
    const personsWithNullWebhook = (message: Record<string, unknown>) => {
      message.author = discord.world.person;
      message.webhook_id = null;
    };
    for (const message of messagesOf('guild-own-message-echo', personsWithNullWebhook)) discord.rawMessageCreate(message);
    discord.messageCreate({ channelId: discord.world.channelId, content: 'a person after the bots' });
    await handedOver(2);
    expect(messages.map((message) => [message.text, message.sender.isBot])).toEqual([['Unread message written by AT', false], ['a person after the bots', false]]);
  });

  it("with allowBots hands over a webhook's message, marked as a bot's", async () => {
    const { discord } = await start(true);
    for (const message of [...messagesOf('guild-own-message-echo'), ...messagesOf('guild-webhook-embed-open-channel', withContent)]) discord.rawMessageCreate(message);
    const [webhook] = await handedOver(1);
    expect(webhook).toMatchObject({ text: 'Deploy finished', sender: { id: '1374332266083254363', isBot: true } });
  });

  it("hands over a forward's content and files from message_snapshots, after where it came from", async () => {
    const { discord } = await start();
    for (const message of messagesOf('guild-forwarded-image-open-channel')) discord.rawMessageCreate(message);
    // The same forward with words, from a channel the bot knows.
    for (const message of messagesOf('guild-forwarded-image-open-channel', (message) => {
      const snapshots = message.message_snapshots as { message: { content: string } }[];
      snapshots[0]!.message.content = 'the build is green';
      message.message_reference = { ...(message.message_reference as object), channel_id: discord.world.channelId };
    })) discord.rawMessageCreate(message);
    const [image, words] = await handedOver(2);
    expect(image).toMatchObject({ text: '[forwarded from another channel]', sender: { id: discord.world.person.id, isBot: false } });
    expect(image!.attachments).toMatchObject([{ kind: 'image', mediaType: 'image/jpeg', name: 'IMG_7203.jpg', size: 517431 }]);
    expect(words!.text).toBe('[forwarded from #general]\nthe build is green');
    expect(words!.attachments).toHaveLength(1);
  });
});

/**
 * `groupPolicy: allowlist` and `open` on every platform, through the real gateway process with
 * Telegram, Slack and Discord at once (each against its fake, the real Anthropic SDK against the
 * fake model). Two runs of one home, each giving the platforms different policies:
 *
 * - `allowlist`: no code anywhere; a stranger's group gets silence and nothing reaches the model;
 *   the chats of `allowlists.<platform>.chats` and groups an admin added the bot to are served.
 * - `open`: every group is served, as before groups needed an admin's yes.
 *
 * (`approval`, the default, has a file per platform: group-approval-*-e2e.test.ts.)
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIUser } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscordServer, type FakeDiscord } from '../fakes/fake-discord-server.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { startFakeSlackServer, type FakeSlack } from '../fakes/fake-slack-server.ts';
import { startFakeTelegramServer, type FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { FakeUser } from '../fakes/fake-telegram-updates.ts';
import { fakeAnthropicEnv } from '../helpers/fake-model-env.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

const telegramAdmin = { id: 7001, first_name: 'Ada' };
const telegramStranger = { id: 7002, first_name: 'Mallory' };
const slackAdmin = { id: 'U0ADMIN01', name: 'Ada' };
const slackMember = { id: 'U0MEMBER2', name: 'Bea' };
const wait = 30_000;
const testTimeout = 120_000;

describe('groupPolicy allowlist and open, on every platform (through the gateway)', () => {
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let slack: FakeSlack;
  let discord: FakeDiscord;
  let home: string;
  let gateway: StartedGateway | undefined;
  let discordStranger: APIUser;

  beforeAll(async () => {
    [model, telegram, slack, discord] = await Promise.all([startFakeModelServer(), startFakeTelegramServer(), startFakeSlackServer(), startFakeDiscordServer()]);
    home = createTempHome('operator-group-policies-');
    discordStranger = discord.addDmChannel('Stranger').user;
  }, testTimeout);

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([telegram?.close(), slack?.close(), discord?.close(), model?.close()]);
    if (home) removeTempHome(home);
  });

  /** Starts the gateway with every platform, after writing `settings` to operator.json. */
  async function start(settings: Record<string, unknown>): Promise<StartedGateway> {
    await gateway?.stop();
    writeFileSync(join(home, 'operator.json'), JSON.stringify(settings));
    const env = {
      ...fakeAnthropicEnv(model),
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      SLACK_BOT_TOKEN: slack.bot.token,
      SLACK_SIGNING_SECRET: slack.signingSecret,
      SLACK_API_URL: slack.apiUrl,
      DISCORD_BOT_TOKEN: discord.token,
      DISCORD_API_URL: discord.apiUrl,
      OPERATOR_ADMINS: [`telegram:${telegramAdmin.id}`, `slack:${slackAdmin.id}`, `discord:${discord.world.person.id}`].join(','),
      OPERATOR_REVIEW_EVERY: '0',
    };
    gateway = await startGateway({ home, env }, 60_000);
    return gateway;
  }

  const tgMention = (chatId: number, from: FakeUser, text: string) => telegram.pushUpdate(telegram.textMessage({ chatId, from, text: `@${telegram.bot.username} ${text}` }));
  const tgAnswer = (chatId: number, contains: string) => telegram.waitFor((fake) => fake.messages(chatId).find((message) => message.text.includes(contains)), wait);
  const slackAnswer = (channel: string, contains: string) => slack.waitFor((fake) => fake.botMessages(channel).find((message) => fake.display(message).text.includes(contains)), wait);
  const discordAnswer = (channelId: string, contains: string) => discord.waitFor((fake) => fake.botMessages(channelId).find((stored) => stored.message.content.includes(contains)), wait);

  async function slackMention(channel: string, from: { id: string; name: string }, text: string): Promise<void> {
    const message = slack.personMessage({ channel, from, text: `<@${slack.bot.userId}> ${text}` });
    expect((await slack.send(`${gateway!.origin}/webhooks/slack`, slack.envelope(message))).status).toBe(200);
  }

  async function slackJoined(channel: string, inviter: string): Promise<void> {
    const event = { type: 'member_joined_channel', user: slack.bot.userId, channel, channel_type: 'C', team: slack.bot.teamId, inviter, event_ts: `${Math.floor(Date.now() / 1000)}.000200` };
    expect((await slack.send(`${gateway!.origin}/webhooks/slack`, slack.envelope(event))).status).toBe(200);
  }

  /** Waits until the gateway's log shows `count` messages refused in `conversation`. */
  async function refusedIn(conversation: string, count: number): Promise<void> {
    // A Slack channel's mention is answered in a thread under it (slack.replyInThread's default), its conversation that thread's.
    const one = `"event":"message\\.refused"[^\\n]*"conversation":"${conversation}(?::thread:[0-9.]+)?"`;
    await gateway!.output.waitFor(new RegExp(`(?:[\\s\\S]*?${one}){${count}}`), { stream: 'stderr', timeoutMs: wait, label: `${count} refusals in ${conversation}` });
  }

  it('Telegram and Discord under allowlist, Slack open', async () => {
    const strangerGroup = -1007001;
    const listedGroup = -1007002;
    const adminGroup = -1007003;
    await start({
      groupPolicy: { telegram: 'allowlist', discord: 'allowlist', slack: 'open' },
      allowlists: { telegram: { chats: [String(listedGroup)] } },
    });
    // Telegram: a stranger adds the bot and mentions it: not a word, no code, no model request.
    telegram.pushUpdate(telegram.botMembership({ chatId: strangerGroup, from: telegramStranger }));
    tgMention(strangerGroup, telegramStranger, 'hello?');
    // Discord: a server nobody listed; Discord names nobody who added the bot, so nothing approves it.
    discord.messageCreate({ channelId: discord.world.channelId, content: `<@${discord.bot.id}> hello?`, author: discordStranger });
    await refusedIn(`telegram:group:${strangerGroup}`, 1);
    await refusedIn(`discord:channel:${discord.world.channelId}`, 1);
    expect(telegram.messages(strangerGroup)).toEqual([]);
    expect(discord.botMessages(discord.world.channelId)).toEqual([]);
    expect(model.requests).toHaveLength(0);

    // A listed chat is served, and a group an admin added the bot to.
    model.enqueue({ text: 'Listed and served.' }, { text: 'Added by an admin.' }, { text: 'Slack is open.' });
    tgMention(listedGroup, telegramStranger, 'hi');
    await tgAnswer(listedGroup, 'Listed and served.');
    telegram.pushUpdate(telegram.botMembership({ chatId: adminGroup, from: telegramAdmin }));
    tgMention(adminGroup, telegramStranger, 'hi');
    await tgAnswer(adminGroup, 'Added by an admin.');
    // Slack is open: any channel, no invitation, no code.
    await slackMention('C0OPEN001', slackMember, 'hi');
    await slackAnswer('C0OPEN001', 'Slack is open.');
    expect(slack.botMessages('C0OPEN001')).toHaveLength(1);
  }, testTimeout * 2);

  it('Telegram and Discord open, Slack under allowlist', async () => {
    const strangerGroup = -1007011;
    await start({
      groupPolicy: { telegram: 'open', discord: 'open', slack: 'allowlist' },
      allowlists: { slack: { chats: ['C0LISTED1'] } },
    });
    model.enqueue({ text: 'Telegram is open.' });
    telegram.pushUpdate(telegram.botMembership({ chatId: strangerGroup, from: telegramStranger }));
    tgMention(strangerGroup, telegramStranger, 'hi');
    await tgAnswer(strangerGroup, 'Telegram is open.');
    expect(telegram.messages(strangerGroup)).toHaveLength(1);
    model.enqueue({ text: 'Discord is open.' });
    discord.messageCreate({ channelId: discord.world.threadId, content: `<@${discord.bot.id}> hi`, author: discordStranger });
    await discordAnswer(discord.world.threadId, 'Discord is open.');

    // Slack under allowlist: a member's invitation gets no code, a mention there nothing.
    const requests = model.requests.length;
    await slackJoined('C0BYMEMBR', slackMember.id);
    await slackMention('C0BYMEMBR', slackMember, 'hello?');
    await refusedIn('slack:channel:C0BYMEMBR', 1);
    expect(slack.botMessages('C0BYMEMBR')).toEqual([]);
    expect(model.requests).toHaveLength(requests);
    // A listed channel, and one an admin invited the bot to, are served.
    model.enqueue({ text: 'Listed in Slack.' }, { text: 'Invited by an admin.' });
    await slackMention('C0LISTED1', slackMember, 'hi');
    await slackAnswer('C0LISTED1', 'Listed in Slack.');
    await slackJoined('C0BYADMIN', slackAdmin.id);
    await slackMention('C0BYADMIN', slackMember, 'hi');
    await slackAnswer('C0BYADMIN', 'Invited by an admin.');
  }, testTimeout * 2);
});

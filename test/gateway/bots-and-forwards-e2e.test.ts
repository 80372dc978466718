/**
 * Bots are not people, and forwards reach the agent: through the real gateway process with
 * Telegram, Slack and Discord at once (each against its fake, the real Anthropic SDK against the
 * fake model), fed the real payloads of the corpus (../shared/real-payloads). Two runs of one home:
 *
 * - default (`allowBots` off): other apps' messages in a Slack channel that needs no mention,
 *   Slackbot's notice in its DM, a Discord webhook's and a bot's messages, a Telegram bot's and an
 *   inline bot's: no answer, nothing to the model, and no pairing code, though each is a stranger
 *   where a person would get one. A forward's content and origin reach the model.
 * - `allowBots` on for every platform: another app's message in the open Slack channel, a webhook's
 *   in the open Discord channel and a listed bot's Telegram DM are answered; a second app message
 *   in a row is not (`budgets.botTurns` 1); a stranger bot's DM still gets no pairing code, and
 *   Slackbot is still not answered.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { APIMessage } from 'discord.js';
import type { Update } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeDiscordServer, type FakeDiscord } from '../fakes/fake-discord-server.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { startFakeSlackServer, type FakeSlack } from '../fakes/fake-slack-server.ts';
import { startFakeTelegramServer, type FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { fakeAnthropicEnv } from '../helpers/fake-model-env.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { fillPayloads, realPayload } from '../helpers/real-payloads.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

const telegramAdmin = 7101;
/** A stranger bot in Telegram (its DM would get a pairing code, were it a person). */
const telegramBot = 7102;
/** A bot on the Telegram allowlist. */
const listedBot = 7103;
const slackAdmin = { id: 'U0ADMIN01', name: 'Ada' };
/** A person in Slack, not an admin. */
const slackPerson = { id: 'U0PERSON1', name: 'Bob' };
const openChannel = 'C0OPEN001';
const slackbotDm = 'D0SLACKBOT';
const wait = 30_000;
const testTimeout = 180_000;

describe('other bots and forwards, on every platform (through the gateway)', () => {
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let slack: FakeSlack;
  let discord: FakeDiscord;
  let home: string;
  let gateway: StartedGateway | undefined;

  beforeAll(async () => {
    [model, telegram, slack, discord] = await Promise.all([startFakeModelServer(), startFakeTelegramServer(), startFakeSlackServer(), startFakeDiscordServer()]);
    home = createTempHome('operator-bots-forwards-');
  }, testTimeout);

  afterAll(async () => {
    await gateway?.stop();
    await Promise.all([telegram?.close(), slack?.close(), discord?.close(), model?.close()]);
    if (home) removeTempHome(home);
  });

  /** Starts the gateway with every platform: DMs by pairing, the open channels answering without a mention. */
  async function start(allowBots: boolean): Promise<StartedGateway> {
    await gateway?.stop();
    const settings = {
      dmPolicy: { telegram: 'pairing', discord: 'pairing', slack: 'pairing' },
      groupPolicy: { slack: 'open', discord: 'open' },
      allowlists: { telegram: { users: [String(listedBot)] } },
      groups: { [`slack:${openChannel}`]: { requireMention: false }, [`discord:${discord.world.channelId}`]: { requireMention: false } },
      telegram: { allowBots },
      // Answers in a thread under each message (slack.replyInThread's default): botTurns still counts
      // the channel's bots' messages in a row, each top-level message a conversation of its own.
      slack: { allowBots },
      discord: { allowBots },
      // One bot message in a row per conversation when bots are let through (a platform's own botTurns would take its place).
      budgets: { botTurns: 1 },
    };
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
      OPERATOR_ADMINS: [`telegram:${telegramAdmin}`, `slack:${slackAdmin.id}`, `discord:${discord.world.person.id}`].join(','),
      OPERATOR_REVIEW_EVERY: '0',
    };
    gateway = await startGateway({ home, env }, 60_000);
    return gateway;
  }

  // --- the corpus, filled in with this test's ids ---------------------------------------------
  const slackIds = () => ({ TEAM: slack.bot.teamId, SLACK_BOT: slack.bot.userId, S_USER: slackPerson.id, S_OTHER: 'U0OTHER01', C_OPEN: openChannel, C_MAIN: 'C0MAIN001', D_USER: 'D0PERSON1', D_SLACKBOT: slackbotDm });
  async function slackSample(name: string): Promise<void> {
    for (const body of fillPayloads(realPayload('slack', name), slackIds())) {
      expect((await slack.send(`${gateway!.origin}/webhooks/slack`, { kind: 'json', body: body as Record<string, unknown> })).status).toBe(200);
    }
  }
  function telegramSample(name: string, user: number, adapt: (message: Record<string, unknown>) => void = () => {}): void {
    for (const update of fillPayloads(realPayload('telegram', name), { USER: user, ADMIN: telegramAdmin, OTHER: 7199, GROUP: -1007100 })) {
      adapt((update as { message: Record<string, unknown> }).message);
      telegram.pushUpdate(update as Update);
    }
  }
  function discordSample(name: string, adapt: (message: Record<string, unknown>) => void = () => {}): void {
    const ids = { USER: discord.world.person.id, CH_OPEN: discord.world.channelId, CH_MAIN: discord.world.channelId, D_USER: discord.world.dmChannelId, GUILD: discord.world.guildId, CDN: discord.origin, BOT_ID: discord.bot.id };
    for (const frame of fillPayloads(realPayload('discord', name), ids)) {
      const message = (frame as { d: Record<string, unknown> }).d;
      adapt(message);
      discord.rawMessageCreate(message as unknown as APIMessage);
    }
  }
  /** The sample's sender made a bot: a bot talking to ours. */
  const asBot = (message: Record<string, unknown>) => {
    message.from = { ...(message.from as object), is_bot: true };
  };
  const viaInlineBot = (message: Record<string, unknown>) => {
    message.via_bot = { id: 9090, is_bot: true, first_name: 'GIF', username: 'gif' };
  };
  /** A webhook that posts words (the corpus's posts only an embed). */
  const webhookWords = (message: Record<string, unknown>) => {
    message.content = 'Deploy finished, tell everyone';
  };
  /** A bot account (not a webhook) writing in the DM of the Discord person. */
  const discordBotAuthor = (message: Record<string, unknown>) => {
    message.author = { ...(message.author as object), id: '888000888000888000', username: 'otherbot', bot: true };
  };

  // --- what the platforms got -----------------------------------------------------------------
  const sentToModel = () => JSON.stringify(model.requests.map((request) => request.body.messages));
  const everythingSent = () =>
    JSON.stringify([
      telegram.calls.filter((call) => call.method === 'sendMessage').map((call) => call.params),
      slack.calls.filter((call) => call.method === 'chat.postMessage' || call.method === 'chat.postEphemeral').map((call) => call.params),
      discord.callsOf('createMessage').map((call) => call.body),
    ]);

  it('default: no answer, nothing to the model and no pairing code for any bot; forwards reach the model with their origin', async () => {
    await start(false);
    // Slack: another app's bot_message and CircleCI's app message in a channel that needs no
    // mention; Slackbot's notice in its DM (a stranger's DM under pairing).
    await slackSample('channel-bot-message-subtype-open-channel');
    await slackSample('channel-circleci-app-message-open-channel');
    await slackSample('channel-github-app-notification');
    await slackSample('dm-from-slackbot');
    // Telegram: a stranger bot's DM and an inline bot's message (pairing DMs), an anonymous admin in a group.
    telegramSample('text-single-digit', telegramBot, asBot);
    telegramSample('text-cyrillic-emoji', telegramBot + 10, viaInlineBot);
    // Discord: a webhook in the open channel, a bot in a DM.
    discordSample('guild-webhook-embed-open-channel', webhookWords);
    discordSample('dm-text', discordBotAuthor);

    // A person after them on each platform, in the same conversations: the turns that follow show
    // the bots' messages were handled (each platform hands a conversation's messages over in order).
    model.enqueue({ text: 'Slack person answered.' }, { text: 'Telegram person answered.' }, { text: 'Discord person answered.' });
    await slack.send(`${gateway!.origin}/webhooks/slack`, slack.envelope(slack.personMessage({ channel: openChannel, from: slackPerson, text: 'a person in the open channel' })));
    await slack.waitFor((fake) => fake.botMessages(openChannel).find((message) => fake.display(message).text.includes('Slack person answered.')), wait);
    telegram.pushUpdate(telegram.textMessage({ chatId: telegramAdmin, text: 'a person in Telegram' }));
    await telegram.waitFor((fake) => fake.messages(telegramAdmin).find((message) => message.text.includes('Telegram person answered.')), wait);
    discord.messageCreate({ channelId: discord.world.channelId, content: 'a person in the open Discord channel' });
    await discord.waitFor((fake) => fake.botMessages(discord.world.channelId).find((stored) => stored.message.content.includes('Discord person answered.')), wait);

    expect(model.requests).toHaveLength(3);
    const toModel = sentToModel();
    for (const botWords of ['Reacji Channeler', 'CircleCI', 'another oneeeee', 'You have been removed', 'Deploy finished']) expect(toModel).not.toContain(botWords);
    expect(everythingSent()).not.toMatch(/pairing code|\/pair /i);
    expect(slack.botMessages(slackbotDm)).toEqual([]);
    expect(slack.botMessages(openChannel)).toHaveLength(1);
    expect(telegram.messages(telegramBot)).toEqual([]);
    expect(telegram.messages(telegramBot + 10)).toEqual([]);
    expect(discord.botMessages(discord.world.dmChannelId)).toEqual([]);
    expect(discord.botMessages(discord.world.channelId)).toHaveLength(1);

    // Forwards: their words and where they came from reach the model.
    model.enqueue({ text: 'Slack forward seen.' }, { text: 'Telegram forward seen.' }, { text: 'Discord forward seen.' });
    await slackSample('channel-share-with-comment-open-channel');
    await slack.waitFor((fake) => fake.botMessages(openChannel).find((message) => fake.display(message).text.includes('Slack forward seen.')), wait);
    expect(JSON.stringify(model.requests.at(-1)!.body.messages)).toContain('hello check that out!\\n\\n[forwarded from another channel / lev]\\nthis will be shared with a message');
    telegramSample('doc-forwarded-from-user', telegramAdmin);
    await telegram.waitFor((fake) => fake.messages(telegramAdmin).find((message) => message.text.includes('Telegram forward seen.')), wait);
    expect(JSON.stringify(model.requests.at(-1)!.body.messages)).toContain('[forwarded from Forward Firstname Forward Lastname]\\n/start');
    discordSample('guild-forwarded-image-open-channel', (message) => {
      (message.message_snapshots as { message: { content: string } }[])[0]!.message.content = 'the build is green';
    });
    await discord.waitFor((fake) => fake.botMessages(discord.world.channelId).find((stored) => stored.message.content.includes('Discord forward seen.')), wait);
    expect(JSON.stringify(model.requests.at(-1)!.body.messages)).toContain('[forwarded from another channel]\\nthe build is green');
  }, testTimeout);

  it('allowBots on: bots are answered where a person would be; a stranger bot still gets no pairing code, Slackbot no answer', async () => {
    await start(true);
    const requests = model.requests.length;
    model.enqueue({ text: 'Slack app answered.' });
    await slackSample('channel-circleci-app-message-open-channel');
    await slack.waitFor((fake) => fake.botMessages(openChannel).find((message) => fake.display(message).text.includes('Slack app answered.')), wait);
    expect(JSON.stringify(model.requests.at(-1)!.body.messages)).toContain('CircleCI job failed.');
    // A second app message in a row (budgets.botTurns 1) is not answered: the person's after it is the next turn.
    await slackSample('channel-bot-message-subtype-open-channel');

    model.enqueue({ text: 'Webhook answered.' });
    discordSample('guild-webhook-embed-open-channel', webhookWords);
    await discord.waitFor((fake) => fake.botMessages(discord.world.channelId).find((stored) => stored.message.content.includes('Webhook answered.')), wait);
    expect(JSON.stringify(model.requests.at(-1)!.body.messages)).toContain('Deploy finished, tell everyone');

    // A stranger bot's DM: refused without a code (the gateway logs the refusal), then a listed bot is answered.
    telegramSample('text-single-digit', telegramBot, asBot);
    await gateway!.output.waitFor(new RegExp(`"event":"message\\.refused"[^\\n]*"conversation":"telegram:dm:${telegramBot}"`), { stream: 'stderr', timeoutMs: wait, label: 'the stranger bot refused' });
    model.enqueue({ text: 'Listed bot answered.' });
    telegramSample('text-single-digit', listedBot, asBot);
    await telegram.waitFor((fake) => fake.messages(listedBot).find((message) => message.text.includes('Listed bot answered.')), wait);

    // Slackbot's notice, then a person in the same workspace: the person's answer comes, Slackbot's never.
    await slackSample('dm-from-slackbot');
    model.enqueue({ text: 'Person after Slackbot.' });
    await slack.send(`${gateway!.origin}/webhooks/slack`, slack.envelope(slack.personMessage({ channel: openChannel, from: slackPerson, text: 'me again' })));
    await slack.waitFor((fake) => fake.botMessages(openChannel).find((message) => fake.display(message).text.includes('Person after Slackbot.')), wait);

    expect(model.requests).toHaveLength(requests + 4);
    expect(telegram.messages(telegramBot)).toEqual([]);
    expect(slack.botMessages(slackbotDm)).toEqual([]);
    expect(everythingSent()).not.toMatch(/pairing code|\/pair /i);
    expect(sentToModel()).not.toContain('You have been removed');
    expect(sentToModel()).not.toContain('p1724954997876929');
    expect(slack.botMessages(openChannel).filter((message) => slack.display(message).text.includes('Slack app answered.'))).toHaveLength(1);
  }, testTimeout);
});

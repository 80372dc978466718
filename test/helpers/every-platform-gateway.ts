/**
 * The real gateway process on Discord, Telegram and Slack at once, each against its fake, for
 * tests that one platform's trouble leaves the others answering. Each platform has an admin who
 * talks to the bot in a DM; `answers(platform)` has the bot answer one of them and waits for it.
 */
import { startFakeDiscordServer, type FakeDiscord } from '../fakes/fake-discord-server.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { startFakeSlackServer, type FakeSlack } from '../fakes/fake-slack-server.ts';
import { startFakeTelegramServer, type FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { fakeAnthropicEnv } from './fake-model-env.ts';
import { startGateway, type StartedGateway } from './gateway-process.ts';
import { createTempHome, removeTempHome } from './temp-home.ts';

/** The platforms of the gateway. */
export type Platform = 'discord' | 'telegram' | 'slack';

/** The Telegram admin (a DM). */
export const telegramAdmin = { id: 31_001, first_name: 'Tess' };
/** The Slack admin and the DM with them. */
export const slackAdmin = { id: 'U0ISOLATE1', name: 'Sol' };
export const slackAdminDm = 'D0ISOLATE1';
/** The bearer token of `/metrics`. */
export const metricsToken = 'isolation-metrics-token-0123456789abcdef';

/** Everything a test needs. */
export interface EveryPlatformGateway {
  model: FakeModelServer;
  discord: FakeDiscord;
  telegram: FakeTelegram;
  slack: FakeSlack;
  home: string;
  /** The gateway started last. */
  gateway: StartedGateway;
  /** Starts the gateway (again); `env` adds to its environment. */
  start(env?: Record<string, string>): Promise<StartedGateway>;
  /** Has the bot answer `text` to its admin on `platform` (a DM) and waits for it. */
  answers(platform: Platform, text: string, timeoutMs: number): Promise<void>;
  /** The `/metrics` exposition text. */
  metrics(): Promise<string>;
  /** Stops the gateway, closes the fakes and removes the home. */
  close(): Promise<void>;
}

/**
 * Starts the fakes and the gateway; Slack by Socket Mode unless `slackHttp` (HTTP events need the
 * gateway exposed, which puts `/metrics` behind the web chat's login too). `env` adds to the
 * gateway's environment at every start.
 */
export async function startEveryPlatformGateway(homePrefix: string, options: { slackHttp?: boolean; env?: Record<string, string> } = {}): Promise<EveryPlatformGateway> {
  const [model, discord, telegram, slack] = await Promise.all([startFakeModelServer(), startFakeDiscordServer(), startFakeTelegramServer(), startFakeSlackServer()]);
  const home = createTempHome(homePrefix);
  let gateway: StartedGateway | undefined;
  const start = async (env: Record<string, string> = {}) => {
    gateway = await startGateway(
      {
        home,
        env: {
          ...fakeAnthropicEnv(model),
          DISCORD_BOT_TOKEN: discord.token,
          DISCORD_API_URL: discord.apiUrl,
          TELEGRAM_BOT_TOKEN: telegram.token,
          TELEGRAM_API_ROOT: telegram.apiRoot,
          SLACK_BOT_TOKEN: slack.bot.token,
          SLACK_API_URL: slack.apiUrl,
          ...(options.slackHttp ? { SLACK_SIGNING_SECRET: slack.signingSecret } : { SLACK_APP_TOKEN: slack.socket.appToken }),
          OPERATOR_ADMINS: [`discord:${discord.world.person.id}`, `telegram:${telegramAdmin.id}`, `slack:${slackAdmin.id}`].join(','),
          OPERATOR_REVIEW_EVERY: '0',
          OPERATOR_METRICS_TOKEN: metricsToken,
          ...options.env,
          ...env,
        },
      },
      90_000,
    );
    return gateway;
  };
  await start();

  async function answers(platform: Platform, text: string, timeoutMs: number): Promise<void> {
    model.enqueue({ text });
    if (platform === 'discord') {
      discord.messageCreate({ channelId: discord.world.dmChannelId, content: `say: ${text}` });
      await discord.waitFor((fake) => fake.botMessages(discord.world.dmChannelId).find((stored) => stored.message.content.includes(text)), timeoutMs);
    } else if (platform === 'telegram') {
      telegram.pushUpdate(telegram.textMessage({ chatId: telegramAdmin.id, from: telegramAdmin, text: `say: ${text}` }));
      await telegram.waitFor((fake) => fake.messages(telegramAdmin.id).find((message) => message.text.includes(text)), timeoutMs);
    } else {
      const request = slack.envelope(slack.personMessage({ channel: slackAdminDm, from: slackAdmin, text: `say: ${text}` }));
      if (options.slackHttp) await slack.send(`${gateway!.origin}/webhooks/slack`, request);
      else slack.socket.deliver(request);
      await slack.waitFor((fake) => fake.botMessages(slackAdminDm).find((message) => fake.display(message).text.includes(text)), timeoutMs);
    }
  }

  return {
    model,
    discord,
    telegram,
    slack,
    home,
    get gateway() {
      return gateway!;
    },
    start,
    answers,
    async metrics() {
      return (await fetch(`${gateway!.origin}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
    },
    async close() {
      await gateway?.stop();
      await Promise.all([discord.close(), telegram.close(), slack.close(), model.close()]);
      removeTempHome(home);
    },
  };
}

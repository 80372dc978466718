/**
 * Which chat platforms `operator start` connects, read from the environment (credentials are
 * only ever read from there) and the configuration. Each platform's adapter, and its SDK, is
 * imported only when its credentials are present: a gateway without Discord should not spend
 * the time discord.js takes to load.
 */
import type { ChannelAdapter, ChannelMemory } from '../channels/types.ts';
import type { GatewayConfig } from '../gateway/config/index.ts';

/** A platform the environment can enable. */
interface PlatformSetup {
  name: string;
  /** What enables it, for the start-up banner. */
  help: string;
  /** The adapter, when its credentials are present (with `memory`, its memory across restarts); a problem when they are incomplete. */
  create(env: NodeJS.ProcessEnv, config: GatewayConfig, memory?: ChannelMemory): Promise<ChannelAdapter> | undefined;
}

/** A credential from the environment, blank counting as unset. */
function credential(env: NodeJS.ProcessEnv, name: string): string | undefined {
  return env[name]?.trim() || undefined;
}

const setups: PlatformSetup[] = [
  {
    name: 'telegram',
    help: 'Telegram: set TELEGRAM_BOT_TOKEN (optional TELEGRAM_WEBHOOK_URL + TELEGRAM_WEBHOOK_SECRET for webhooks, TELEGRAM_API_ROOT for a self-hosted Bot API)',
    create(env, config, memory) {
      const token = credential(env, 'TELEGRAM_BOT_TOKEN');
      if (!token) return undefined;
      const { webhookUrl, webhookSecret, apiRoot, allowBots, botTurns, drafts } = config.telegram;
      const webhook = webhookUrl && webhookSecret ? { url: webhookUrl, secret: webhookSecret } : undefined;
      return import('../channels/telegram/telegram-channel.ts').then((telegram) => telegram.createTelegramChannel({ token, apiRoot, webhook, allowBots, botTurns: botTurns ?? config.budgets.botTurns, drafts, editedMessages: config.editedMessages === 'reanswer', memory }));
    },
  },
  {
    name: 'discord',
    help: 'Discord: set DISCORD_BOT_TOKEN (optional DISCORD_API_URL for a non-default REST base)',
    create(env, config) {
      const token = credential(env, 'DISCORD_BOT_TOKEN');
      if (!token) return undefined;
      return import('../channels/discord/discord-channel.ts').then((discord) => discord.createDiscordChannel({ token, apiUrl: config.discord.apiUrl, allowBots: config.discord.allowBots, botTurns: config.discord.botTurns ?? config.budgets.botTurns, catchUp: { windowMs: config.discord.catchUpMinutes * 60_000 }, editedMessages: config.editedMessages === 'reanswer' }));
    },
  },
  {
    name: 'slack',
    help: 'Slack: set SLACK_BOT_TOKEN with SLACK_SIGNING_SECRET (events at POST /webhooks/slack) or SLACK_APP_TOKEN (Socket Mode); optional SLACK_API_URL',
    create(env, config, memory) {
      const botToken = credential(env, 'SLACK_BOT_TOKEN');
      if (!botToken) return undefined;
      const signingSecret = credential(env, 'SLACK_SIGNING_SECRET');
      const appToken = credential(env, 'SLACK_APP_TOKEN');
      if (!signingSecret && !appToken) throw new MissingCredentialError('SLACK_BOT_TOKEN is set, but neither SLACK_SIGNING_SECRET (HTTP events) nor SLACK_APP_TOKEN (Socket Mode) is');
      return import('../channels/slack/slack-channel.ts').then((slack) => slack.createSlackChannel({ botToken, signingSecret, appToken, apiUrl: config.slack.apiUrl, allowBots: config.slack.allowBots, botTurns: config.slack.botTurns ?? config.budgets.botTurns, replyInThread: config.slack.replyInThread, editedMessages: config.editedMessages === 'reanswer', memory }));
    },
  },
];

/** A platform's credentials are present but incomplete. */
export class MissingCredentialError extends Error {
  override name = 'MissingCredentialError';
}

/**
 * The adapters of the platforms whose credentials are present, and how to enable the others;
 * `memory` gives each platform's memory across restarts (see `gateway/channel-memory.ts`).
 */
export async function platformChannels(env: NodeJS.ProcessEnv, config: GatewayConfig, memory?: (platform: string) => ChannelMemory): Promise<{ adapters: ChannelAdapter[]; help: string[] }> {
  const adapters: ChannelAdapter[] = [];
  const help: string[] = [];
  for (const setup of setups) {
    const adapter = setup.create(env, config, memory?.(setup.name));
    if (adapter) adapters.push(await adapter);
    else help.push(setup.help);
  }
  return { adapters, help };
}

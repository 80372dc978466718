/**
 * The platform a conversation's answer goes out through, made inside its Durable Object from the
 * Worker's variables: the same channel code as on Node, used only to send (nothing is received
 * through it; webhooks are the Worker's routes).
 */
import type { ChannelAdapter } from '../channels/types.ts';
import { createTelegramChannel } from '../channels/telegram/telegram-channel.ts';
import { createDiscordReplies } from './discord-replies.ts';
import { createSlackReplies } from './slack-replies.ts';
import type { WireMessage } from './wire-message.ts';
import type { WorkerEnv } from './worker-env.ts';

/** Made once per object and platform (their clients keep nothing per message). */
const made = new WeakMap<WorkerEnv, Map<string, ChannelAdapter>>();

/**
 * The adapter that answers on `platform`, or undefined when the Worker has no credentials for it.
 * `interaction` is set when the message answered came as a Discord interaction (the answer edits
 * its deferred reply, by the interaction's token).
 */
export function replyChannelFor(platform: string, env: WorkerEnv, interaction?: WireMessage['interaction']): ChannelAdapter | undefined {
  const log = (line: string) => console.error(line);
  // An interaction's adapter holds that message's token: made for it alone, never kept.
  if (platform === 'discord' && interaction) return createDiscordReplies({ apiUrl: env.DISCORD_API_URL, botToken: env.DISCORD_BOT_TOKEN, interaction, log });
  let byPlatform = made.get(env);
  if (!byPlatform) made.set(env, (byPlatform = new Map()));
  const existing = byPlatform.get(platform);
  if (existing) return existing;
  let adapter: ChannelAdapter | undefined;
  switch (platform) {
    case 'telegram':
      if (env.TELEGRAM_BOT_TOKEN) adapter = createTelegramChannel({ token: env.TELEGRAM_BOT_TOKEN, apiRoot: env.TELEGRAM_API_ROOT, log: (line) => console.error(line) });
      break;
    case 'slack':
      if (env.SLACK_BOT_TOKEN) adapter = createSlackReplies({ token: env.SLACK_BOT_TOKEN, apiUrl: env.SLACK_API_URL, log });
      break;
    case 'discord':
      if (env.DISCORD_BOT_TOKEN) adapter = createDiscordReplies({ apiUrl: env.DISCORD_API_URL, botToken: env.DISCORD_BOT_TOKEN, log });
      break;
  }
  if (adapter) byPlatform.set(platform, adapter);
  return adapter;
}

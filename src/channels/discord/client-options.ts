/**
 * The discord.js `Client` options: the four intents the adapter needs and caches cut down to what
 * it reads. The adapter takes messages and interactions as raw gateway payloads and sends through
 * its own REST client, so it needs from discord.js's cache only the guild channels and threads
 * (to find a thread's parent channel). Messages, members, users, presences, reactions, emojis and
 * the rest are not kept (limit 0; the bot's own user and member excepted), and archived threads
 * are swept every hour, so memory does not grow with the number of conversations or messages.
 * No partials are asked for: DM messages arrive as raw payloads whether or not discord.js could
 * build a channel for them, and without `Partials.Channel` it keeps no DM channel per person.
 */
import { GatewayIntentBits, Options, type ClientOptions } from 'discord.js';
import { discordAgent } from './own-agent.ts';

/** The gateway intents: guilds (channels, threads), guild and DM messages, message content. */
export const discordIntents = [GatewayIntentBits.Guilds, GatewayIntentBits.GuildMessages, GatewayIntentBits.MessageContent, GatewayIntentBits.DirectMessages];

/** What is kept of the bot itself even where a cache holds nothing. */
const isBot = (id: string, botId: string | undefined) => id === botId;

/** The options of the adapter's discord.js client (REST at `apiUrl` when given). */
export function discordClientOptions(apiUrl: string | undefined): ClientOptions {
  let botId: string | undefined;
  const options: ClientOptions = {
    intents: discordIntents,
    partials: [],
    makeCache: Options.cacheWithLimits({
      MessageManager: 0,
      DMMessageManager: 0,
      GuildMessageManager: 0,
      UserManager: { maxSize: 0, keepOverLimit: (user) => isBot(user.id, botId ?? (botId = user.client.user?.id)) },
      GuildMemberManager: { maxSize: 0, keepOverLimit: (member) => isBot(member.id, botId ?? (botId = member.client.user?.id)) },
      PresenceManager: 0,
      ReactionManager: 0,
      ReactionUserManager: 0,
      GuildEmojiManager: 0,
      BaseGuildEmojiManager: 0,
      ApplicationEmojiManager: 0,
      GuildStickerManager: 0,
      GuildScheduledEventManager: 0,
      GuildInviteManager: 0,
      GuildBanManager: 0,
      StageInstanceManager: 0,
      VoiceStateManager: 0,
      ThreadMemberManager: 0,
      AutoModerationRuleManager: 0,
      ApplicationCommandManager: 0,
      EntitlementManager: 0,
    }),
    sweepers: { threads: { interval: 3_600, lifetime: 14_400 } },
    allowedMentions: { parse: [] },
    // The client's own REST calls go through discord.js's undici too (see `own-agent.ts`).
    rest: { agent: discordAgent(), ...(apiUrl ? { api: apiUrl } : {}) },
  };
  return options;
}

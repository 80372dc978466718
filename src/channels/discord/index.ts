export { createDiscordChannel, type DiscordChannelOptions } from './discord-channel.ts';
export type { RetryPolicy } from './call-discord.ts';
export { discordIntents } from './client-options.ts';
export { formatDiscordMessage, toDiscordMarkdown, discordMaxLength } from './format/format-message.ts';
export { notAcceptedNotice } from './gateway-events.ts';

/**
 * The bot losing its place on Discord as a {@link MembershipChange}: removed from a server
 * (GUILD_DELETE without `unavailable`: with it, the server is only out of reach for a while) with
 * every channel of that server. It comes over the bot's own gateway connection, about the bot's
 * own servers. (A single channel deleted is not followed yet.)
 * Discord has no blocking of a bot that the bot is told of, so only `removed` comes from here.
 */
import { GatewayDispatchEvents, type Client, type GatewayGuildDeleteDispatchData } from 'discord.js';
import type { MembershipChange } from '../types.ts';

/** Calls `tell` with the bot's removals that `client` reports. */
export function watchMembership(client: Client, tell: (change: MembershipChange) => void): void {
  // The raw dispatch comes before discord.js drops the server from its cache: its channels are
  // read here (threads are under their channel's id in a conversation's address).
  client.ws.on(GatewayDispatchEvents.GuildDelete, (data: GatewayGuildDeleteDispatchData) => {
    if (data.unavailable) return;
    const channels = [...(client.guilds.cache.get(data.id)?.channels.cache.values() ?? [])].filter((channel) => !channel.isThread()).map((channel) => channel.id);
    tell({ dedupeKey: `discord:guild-delete:${data.id}`, platform: 'discord', kind: 'removed', conversationIds: channels, label: `discord:guild:${data.id}`, raw: data });
  });
}

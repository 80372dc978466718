/**
 * Which kind of channel a message or interaction came from: a DM (no guild), a guild channel, or
 * a thread with its parent channel. A thread's parent is not in the message payload; discord.js
 * knows it from GUILD_CREATE and THREAD_CREATE, and a thread it does not know (joined later,
 * swept after archiving) is fetched once (`GET /channels/{id}`) and cached.
 */
import type { Client } from 'discord.js';
import type { GroupRef } from '../types.ts';
import { threadChannelTypes, type ChannelKind } from './conversation.ts';

/** A channel as an interaction payload describes it. */
export interface PartialChannel {
  id: string;
  type: number;
  parent_id?: string | null;
}

/** Finds the kind of a channel. */
export type ChannelKinds = (channelId: string, where: { guildId: string | undefined; userId: string; channel?: PartialChannel }) => Promise<ChannelKind>;

/** A {@link ChannelKinds} over a discord.js client's channel cache; lookup failures are logged. */
export function createChannelKinds(client: () => Client | undefined, log: (line: string) => void): ChannelKinds {
  return async (channelId, where) => {
    if (where.guildId === undefined) return { kind: 'dm', userId: where.userId };
    if (where.channel && threadChannelTypes.has(where.channel.type) && where.channel.parent_id) return { kind: 'thread', parentId: where.channel.parent_id };
    if (where.channel && !threadChannelTypes.has(where.channel.type)) return { kind: 'channel' };
    const current = client();
    try {
      const channel = current?.channels.cache.get(channelId) ?? (await current?.channels.fetch(channelId));
      if (channel?.isThread() && channel.parentId) return { kind: 'thread', parentId: channel.parentId };
    } catch (error) {
      log(`discord: channel ${channelId} could not be looked up (${error instanceof Error ? error.message : String(error)}); taken as a channel`);
    }
    return { kind: 'channel' };
  };
}

/**
 * The server (guild) of a guild channel, the group an admin approves there, with its name when the
 * client knows it. At once when the payload names it (messages, interactions: no wait, so a
 * channel's message is handed over no later than before); else (a message read back from history
 * has none) the channel's own, from the client's cache or fetched once.
 */
export type GuildOf = (channelId: string, guildId: string | undefined) => GroupRef | Promise<GroupRef | undefined>;

/** A {@link GuildOf} over a discord.js client; lookup failures are logged. */
export function createGuildOf(client: () => Client | undefined, log: (line: string) => void): GuildOf {
  const named = (id: string): GroupRef => {
    const name = client()?.guilds.cache.get(id)?.name;
    return { kind: 'guild', id, ...(name ? { title: name } : {}) };
  };
  return (channelId, guildId) => {
    if (guildId !== undefined) return named(guildId);
    return (async () => {
      const current = client();
      try {
        const channel = current?.channels.cache.get(channelId) ?? (await current?.channels.fetch(channelId));
        if (channel && 'guildId' in channel && typeof channel.guildId === 'string') return named(channel.guildId);
      } catch (error) {
        log(`discord: the server of channel ${channelId} could not be looked up (${error instanceof Error ? error.message : String(error)})`);
      }
      return undefined;
    })();
  };
}

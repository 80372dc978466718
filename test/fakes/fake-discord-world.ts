/**
 * The fake's world: one guild with a text channel and a public thread in it, a person who talks
 * to the bot and the DM channel between them, plus the READY and GUILD_CREATE payloads that
 * describe it to a gateway session (channels, threads, the everyone role, the bot's member).
 */
import type { APIUser } from 'discord.js';
import { fakeUser, type FakeDiscordChannel, type FakeDiscordState } from './fake-discord-state.ts';

/** The ids of the default world. */
export interface FakeDiscordWorld {
  guildId: string;
  /** A guild text channel (`#general`). */
  channelId: string;
  /** A public thread in `channelId`. */
  threadId: string;
  /** The DM channel with `person`. */
  dmChannelId: string;
  /** The person who talks to the bot. */
  person: APIUser;
}

/** Creates the default world in `state`. */
export function createWorld(state: FakeDiscordState): FakeDiscordWorld {
  const guildId = state.snowflake();
  const person = fakeUser(state.snowflake(), 'Ada Person');
  const world: FakeDiscordWorld = { guildId, channelId: state.snowflake(), threadId: state.snowflake(), dmChannelId: state.snowflake(), person };
  state.guilds.set(guildId, { id: guildId, name: 'Operator Test Guild' });
  state.channels.set(world.channelId, { id: world.channelId, type: 0, name: 'general', guildId });
  state.channels.set(world.threadId, { id: world.threadId, type: 11, name: 'a thread', guildId, parentId: world.channelId });
  state.channels.set(world.dmChannelId, { id: world.dmChannelId, type: 1, recipient: person });
  return world;
}

/** The READY payload (without the session fields the gateway adds). */
export function readyPayload(state: FakeDiscordState): Record<string, unknown> {
  return {
    v: 10,
    user: { ...state.bot, verified: true, mfa_enabled: false, flags: 0 },
    guilds: [...state.guilds.keys()].map((id) => ({ id, unavailable: true })),
    private_channels: [],
    application: { id: state.applicationId, flags: state.messageContentAllowed ? 1 << 19 : 0 },
    user_settings: {},
    relationships: [],
    presences: [],
    geo_ordered_rtc_regions: [],
    guild_join_requests: [],
  };
}

/** A guild channel or thread as GUILD_CREATE and THREAD_CREATE describe it. */
export function channelPayload(channel: FakeDiscordChannel): Record<string, unknown> {
  const base = { id: channel.id, type: channel.type, guild_id: channel.guildId, name: channel.name ?? channel.id, flags: 0 };
  if (channel.type === 11) {
    return {
      ...base,
      parent_id: channel.parentId,
      owner_id: channel.recipient?.id ?? '1',
      last_message_id: null,
      rate_limit_per_user: 0,
      message_count: 0,
      member_count: 1,
      total_message_sent: 0,
      thread_metadata: { archived: false, auto_archive_duration: 1440, archive_timestamp: new Date().toISOString(), locked: false },
    };
  }
  return { ...base, position: 0, permission_overwrites: [], parent_id: null, topic: null, nsfw: false, last_message_id: null, rate_limit_per_user: 0 };
}

/** The GUILD_CREATE payload of a guild. */
export function guildCreatePayload(state: FakeDiscordState, guildId: string): Record<string, unknown> {
  const guild = state.guilds.get(guildId)!;
  const channels = [...state.channels.values()].filter((channel) => channel.guildId === guildId);
  const joinedAt = new Date().toISOString();
  return {
    id: guild.id,
    name: guild.name,
    icon: null,
    splash: null,
    discovery_splash: null,
    owner_id: state.bot.id === '1' ? '2' : '1',
    afk_channel_id: null,
    afk_timeout: 300,
    verification_level: 0,
    default_message_notifications: 0,
    explicit_content_filter: 0,
    roles: [{ id: guild.id, name: '@everyone', color: 0, colors: { primary_color: 0, secondary_color: null, tertiary_color: null }, hoist: false, icon: null, unicode_emoji: null, position: 0, permissions: '1024', managed: false, mentionable: false, flags: 0 }],
    emojis: [],
    stickers: [],
    features: [],
    mfa_level: 0,
    application_id: null,
    system_channel_id: null,
    system_channel_flags: 0,
    rules_channel_id: null,
    vanity_url_code: null,
    description: null,
    banner: null,
    premium_tier: 0,
    preferred_locale: 'en-US',
    public_updates_channel_id: null,
    nsfw_level: 0,
    premium_progress_bar_enabled: false,
    safety_alerts_channel_id: null,
    joined_at: joinedAt,
    large: false,
    unavailable: false,
    member_count: 2,
    voice_states: [],
    members: [{ user: state.bot, roles: [], joined_at: joinedAt, deaf: false, mute: false, flags: 0 }],
    channels: channels.filter((channel) => channel.type !== 11).map(channelPayload),
    threads: channels.filter((channel) => channel.type === 11).map(channelPayload),
    presences: [],
    stage_instances: [],
    guild_scheduled_events: [],
    soundboard_sounds: [],
  };
}

/**
 * What the fake Discord remembers: the world (the bot, its application, guilds, channels,
 * threads, DM channels, people), every message (the people's and the bot's, as they stand after
 * edits), REST calls, interaction callbacks and follow-ups, registered commands, typing calls,
 * attachment bytes and scripted failures. Shared by the REST routes, the gateway and the event
 * builders.
 */
import type { APIActionRowComponent, APIComponentInMessageActionRow, APIMessage, APIUser } from 'discord.js';
import { ChangeFeed, takeScripted } from './fake-change-feed.ts';

/** One REST call as the fake received it. */
export interface FakeDiscordCall {
  /** The route's name, after Discord's documentation (`createMessage`, `editMessage`, ...). */
  route: string;
  method: string;
  /** The path below `/api/v10`, e.g. `/channels/1/messages`. */
  path: string;
  /** The JSON body (undefined for none). */
  body: unknown;
  /** The HTTP status answered (`0` for a dropped connection). */
  status: number;
}

/** Picks calls by their JSON body (for `failNext`'s `when`). */
export type FakeDiscordCallFilter = (body: unknown, path: string) => boolean;

/**
 * An error answer scripted with `failNext` (Discord's JSON error `{ message, code }` with the
 * HTTP status; a 429 with `retry_after` seconds), or a connection dropped without an answer.
 */
export type FakeDiscordFailure =
  | { status: number; code?: number; message?: string; retryAfter?: number; global?: boolean; times?: number; when?: FakeDiscordCallFilter }
  | {
      dropConnection: true;
      /** Carries the call out first, then drops the connection: the caller never hears that it worked. */
      afterCarryingOut?: boolean;
      times?: number;
      when?: FakeDiscordCallFilter;
    };

/** A channel the fake knows: a guild text channel (0), a DM (1) or a public thread (11). */
export interface FakeDiscordChannel {
  id: string;
  type: 0 | 1 | 11;
  name?: string;
  guildId?: string;
  /** A thread's channel. */
  parentId?: string;
  /** A DM's person. */
  recipient?: APIUser;
}

/** A guild with its channels (threads included), sent in GUILD_CREATE. */
export interface FakeDiscordGuild {
  id: string;
  name: string;
}

/** A message stored by the fake, with how often the bot edited it. */
export interface FakeStoredMessage {
  message: APIMessage;
  edits: number;
  /** The interaction this message answers (its original response or a follow-up). */
  interactionToken?: string;
  /** Sent with flags 64: only the person who pressed sees it. */
  ephemeral?: boolean;
  /** The `allowed_mentions` the bot sent with it. */
  allowedMentions?: unknown;
}

/** An interaction callback (`POST /interactions/{id}/{token}/callback`). */
export interface FakeInteractionCallback {
  interactionId: string;
  token: string;
  type: number;
  data?: unknown;
}

/** A registered interaction the fake dispatched, answerable by its token. */
export interface FakeInteraction {
  id: string;
  token: string;
  channelId: string;
  /** The original response's message, once it exists. */
  originalMessageId?: string;
}

/** The components of a message as the REST body gave them. */
export type FakeComponents = APIActionRowComponent<APIComponentInMessageActionRow>[];

const discordEpoch = 1_420_070_400_000n;

/** State of one fake Discord. */
export class FakeDiscordState extends ChangeFeed {
  readonly token: string;
  readonly bot: APIUser;
  readonly applicationId: string;
  readonly calls: FakeDiscordCall[] = [];
  readonly guilds = new Map<string, FakeDiscordGuild>();
  readonly channels = new Map<string, FakeDiscordChannel>();
  readonly messages = new Map<string, FakeStoredMessage>();
  readonly interactions = new Map<string, FakeInteraction>();
  readonly callbacks: FakeInteractionCallback[] = [];
  readonly typing: string[] = [];
  readonly attachments = new Map<string, { bytes: Uint8Array; contentType: string }>();
  readonly failures = new Map<string, FakeDiscordFailure[]>();
  commands: unknown[] = [];
  /** Whether the portal allows the Message Content intent: IDENTIFY with it closes with 4014 when not, and the application's flags say so. */
  readonly messageContentAllowed: boolean;
  #increment = 0n;

  constructor(options: { token: string; bot: APIUser; applicationId: string; messageContentAllowed: boolean }) {
    super();
    this.token = options.token;
    this.bot = options.bot;
    this.applicationId = options.applicationId;
    this.messageContentAllowed = options.messageContentAllowed;
  }

  /** A fresh snowflake: milliseconds since Discord's epoch (of `at`, default now), shifted, with an increment. */
  snowflake(at: number = Date.now()): string {
    this.#increment = (this.#increment + 1n) % 4096n;
    return String(((BigInt(at) - discordEpoch) << 22n) | this.#increment);
  }

  /** The bot's and the people's messages in a channel, oldest first. */
  channelMessages(channelId: string): FakeStoredMessage[] {
    return [...this.messages.values()].filter((stored) => stored.message.channel_id === channelId);
  }

  /** The scripted failure for this call of `route`, if any (consumed). */
  takeFailure(route: string, body: unknown, path: string): FakeDiscordFailure | undefined {
    return takeScripted(this.failures, route, (failure) => !failure.when || failure.when(body, path));
  }
}

/** A person as Discord describes a user. */
export function fakeUser(id: string, name: string, options: { bot?: boolean } = {}): APIUser {
  return { id, username: name.toLowerCase().replace(/\s+/g, '_'), global_name: name, discriminator: '0', avatar: null, ...(options.bot ? { bot: true } : {}) };
}

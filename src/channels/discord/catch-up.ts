/**
 * Catching up on messages sent while the gateway was not connected. Discord delivers a
 * MESSAGE_CREATE once, to the connections open at that moment, and never again: a message sent
 * while the process was down (a restart, a crash, a session that could not resume) would
 * otherwise never be answered. So whenever a session becomes ready (READY: at start-up, and after
 * a re-identify), the adapter reads the recent history (`GET /channels/{id}/messages?after=`) of
 * the conversations the gateway talked in lately and hands over, oldest first, the messages sent
 * within the catch-up window and after the first message the gateway took there in its last run
 * (`ConversationRef.since`: an older one answered now would come after a newer one's answer).
 * The gateway's dedupe drops those it already took, so a message is
 * still answered once; ones older than the window are left alone (a stale question answered hours
 * later helps nobody, and the window stays well inside the dedupe memory's 24 hours).
 */
import { Routes, type APIMessage, type GatewayMessageCreateDispatchData } from 'discord.js';
import type { ConversationRef } from '../types.ts';
import type { CallDiscord } from './call-discord.ts';
import { channelIdOf, type DiscordConversation } from './conversation.ts';
import { describeError, type Scrub } from './discord-errors.ts';

/** Discord's epoch (2015-01-01), the zero of a snowflake's time. */
const discordEpochMs = 1_420_070_400_000n;

/** Most messages read per conversation (10 pages of Discord's 100). */
const maxMessagesPerConversation = 1_000;

/** Conversations read at once (discord.js queues what Discord's limits do not allow). */
const parallelReads = 4;

/** Catch-up settings. */
export interface CatchUpSettings {
  /** How far back a message may have been sent to be caught up, in ms (0: no catch-up). */
  windowMs: number;
  /** Conversations read at most (the most recently active first). */
  maxConversations: number;
  /** How long ago a conversation may have last had a message to be read at all, in ms. */
  activeWithinMs: number;
}

/** The default: messages of the last hour, in up to 200 conversations active in the last 30 days. */
export const defaultCatchUp: CatchUpSettings = { windowMs: 60 * 60_000, maxConversations: 200, activeWithinMs: 30 * 24 * 60 * 60_000 };

/** One conversation to catch up on: its channel, and the reading of what was missed there. */
export interface CatchUpTarget {
  /** The Discord channel read (a thread's own id). */
  channelId: string;
  conversation: DiscordConversation;
  /** The messages missed there, oldest first ([] when the channel cannot be read: logged). */
  read(): Promise<GatewayMessageCreateDispatchData[]>;
}

/** What reading the history needs. */
export interface CatchUpContext {
  call: CallDiscord;
  /** The conversations to read, most recent first (from the gateway). */
  conversations(since: number, limit: number): Promise<ConversationRef[]>;
  settings: CatchUpSettings;
  now(): number;
  log(line: string): void;
  scrub: Scrub;
}

/** The smallest snowflake of a moment (ms since the Unix epoch): `after` it means "sent after then". */
export function snowflakeAt(ms: number): string {
  const since = BigInt(Math.floor(ms)) - discordEpochMs;
  return String((since > 0n ? since : 0n) << 22n);
}

/**
 * The conversations to catch up on: those the gateway talked in lately, each with the reading of
 * the messages sent there within the window (and after `ConversationRef.since`). At most
 * {@link parallelReads} readings run at once, however many are started.
 */
export async function planCatchUp(context: CatchUpContext): Promise<CatchUpTarget[]> {
  const { settings, now } = context;
  if (settings.windowMs <= 0) return [];
  const conversations = (await context.conversations(now() - settings.activeWithinMs, settings.maxConversations)).filter((ref) => ref.address.platform === 'discord');
  const windowStart = now() - settings.windowMs;
  const limit = concurrencyLimit(parallelReads);
  return conversations.map((conversation) => {
    const channelId = channelIdOf(conversation.address);
    // Nothing older than what the gateway already took there (see ConversationRef.since).
    const after = snowflakeAt(Math.max(windowStart, conversation.since ?? 0));
    return {
      channelId,
      conversation,
      read: () =>
        limit(() => readChannel(context, channelId, after)).catch((error: unknown) => {
          context.log(`discord: missed messages of ${conversation.sessionKey} not read: ${describeError(error, context.scrub)}`);
          return [];
        }),
    };
  });
}

/** Runs at most `max` of the given jobs at once, the rest in the order they came. */
function concurrencyLimit(max: number): <T>(job: () => Promise<T>) => Promise<T> {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async (job) => {
    if (running >= max) await new Promise<void>((resolve) => waiting.push(resolve));
    running++;
    try {
      return await job();
    } finally {
      running--;
      waiting.shift()?.();
    }
  };
}

/** The messages of `channelId` after snowflake `after`, oldest first. */
async function readChannel(context: CatchUpContext, channelId: string, after: string): Promise<GatewayMessageCreateDispatchData[]> {
  const messages: APIMessage[] = [];
  let cursor = after;
  while (messages.length < maxMessagesPerConversation) {
    const query = new URLSearchParams({ after: cursor, limit: '100' });
    const page = await context.call<APIMessage[]>('getChannelMessages', (rest) => rest.get(Routes.channelMessages(channelId), { query }));
    if (!Array.isArray(page) || page.length === 0) break;
    // Discord lists a page newest first, whatever the direction asked for.
    const ascending = [...page].sort((a, b) => compareSnowflakes(a.id, b.id));
    messages.push(...ascending);
    if (page.length < 100) break;
    cursor = ascending.at(-1)!.id;
  }
  // A history message has what MESSAGE_CREATE has but the guild id, which the conversation already knows.
  return messages as GatewayMessageCreateDispatchData[];
}

/** Orders two snowflakes (ids of different lengths compare by length first). */
function compareSnowflakes(a: string, b: string): number {
  return a.length - b.length || (a < b ? -1 : a > b ? 1 : 0);
}

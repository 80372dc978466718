/**
 * The usage ledger's records and how they are stored: day rows and conversation totals, each
 * written as an array of positional values (a month of a thousand conversations' rows parses in
 * a fraction of the time the same rows as objects would, and takes a third of the room).
 */
import type { UsageKind } from '../ops/ops-events.ts';

/** One day's usage of one profile in one conversation, of one kind. */
export interface UsageRow {
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  profile: string;
  /** The session key (`otherConversations` for the rows a full day merged). */
  conversation: string;
  platform: string;
  kind: UsageKind;
  /** Model calls. */
  calls: number;
  /** Turns ended (kind `turn` only). */
  turns: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  costUsd: number;
  /** The last event's time (ms since the epoch). */
  lastAt: number;
}

/** Everything one conversation used, since the ledger first saw it. */
export interface ConversationTotals {
  conversation: string;
  platform: string;
  /** The profile of its latest turn ('' before its first turn). */
  profile: string;
  /** When that turn's usage came. */
  profileAt: number;
  turns: number;
  calls: number;
  /** Every token: input, output, cache reads and writes. */
  tokens: number;
  costUsd: number;
  /** The background reviewer's share of `costUsd`. */
  reviewCostUsd: number;
  /** The last message or model call (ms since the epoch). */
  lastAt: number;
}

const kinds: readonly UsageKind[] = ['turn', 'subagent', 'review', 'transcription'];

/** A row as stored: `[profile, conversation, platform, kind, calls, turns, input, output, cacheRead, cacheWrite, costUsd, lastAt]`. */
export function rowToArray(row: UsageRow): unknown[] {
  return [row.profile, row.conversation, row.platform, row.kind, row.calls, row.turns, row.input, row.output, row.cacheRead, row.cacheWrite, row.costUsd, row.lastAt];
}

/** The row of day `day` stored as `value`, or undefined when it is not one (damaged or foreign data is skipped). */
export function rowFromArray(day: string, value: unknown): UsageRow | undefined {
  if (!Array.isArray(value) || value.length !== 12) return undefined;
  const [profile, conversation, platform, kind, ...numbers] = value as unknown[];
  if (typeof profile !== 'string' || typeof conversation !== 'string' || typeof platform !== 'string' || !kinds.includes(kind as UsageKind)) return undefined;
  if (!numbers.every((number) => typeof number === 'number' && Number.isFinite(number))) return undefined;
  const [calls, turns, input, output, cacheRead, cacheWrite, costUsd, lastAt] = numbers as number[];
  return { day, profile, conversation, platform, kind: kind as UsageKind, calls: calls!, turns: turns!, input: input!, output: output!, cacheRead: cacheRead!, cacheWrite: cacheWrite!, costUsd: costUsd!, lastAt: lastAt! };
}

/** Totals as stored: `[conversation, platform, profile, profileAt, turns, calls, tokens, costUsd, reviewCostUsd, lastAt]`. */
export function totalsToArray(totals: ConversationTotals): unknown[] {
  return [totals.conversation, totals.platform, totals.profile, totals.profileAt, totals.turns, totals.calls, totals.tokens, totals.costUsd, totals.reviewCostUsd, totals.lastAt];
}

/** The totals stored as `value`, or undefined when it is not them. */
export function totalsFromArray(value: unknown): ConversationTotals | undefined {
  if (!Array.isArray(value) || value.length !== 10) return undefined;
  const [conversation, platform, profile, ...numbers] = value as unknown[];
  if (typeof conversation !== 'string' || typeof platform !== 'string' || typeof profile !== 'string') return undefined;
  if (!numbers.every((number) => typeof number === 'number' && Number.isFinite(number))) return undefined;
  const [profileAt, turns, calls, tokens, costUsd, reviewCostUsd, lastAt] = numbers as number[];
  return { conversation, platform, profile, profileAt: profileAt!, turns: turns!, calls: calls!, tokens: tokens!, costUsd: costUsd!, reviewCostUsd: reviewCostUsd!, lastAt: lastAt! };
}

/** Empty totals of `conversation`. */
export function emptyTotals(conversation: string, platform: string): ConversationTotals {
  return { conversation, platform, profile: '', profileAt: 0, turns: 0, calls: 0, tokens: 0, costUsd: 0, reviewCostUsd: 0, lastAt: 0 };
}

/** Adds `delta` into `into` (sums, the latest time and the latest turn's profile). */
export function addTotals(into: ConversationTotals, delta: ConversationTotals): void {
  into.turns += delta.turns;
  into.calls += delta.calls;
  into.tokens += delta.tokens;
  into.costUsd += delta.costUsd;
  into.reviewCostUsd += delta.reviewCostUsd;
  into.lastAt = Math.max(into.lastAt, delta.lastAt);
  if (delta.profile !== '' && delta.profileAt >= into.profileAt) {
    into.profile = delta.profile;
    into.profileAt = delta.profileAt;
  }
  if (into.platform === '') into.platform = delta.platform;
}

/** Adds `delta` into `into` (the counts and the latest time). */
export function addRow(into: UsageRow, delta: UsageRow): void {
  for (const field of ['calls', 'turns', 'input', 'output', 'cacheRead', 'cacheWrite', 'costUsd'] as const) into[field] += delta[field];
  into.lastAt = Math.max(into.lastAt, delta.lastAt);
}

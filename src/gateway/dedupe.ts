/**
 * Inbound dedupe: platforms redeliver updates (webhook retries, a restart re-polling), and a
 * redelivered message must not be answered twice. Seen keys are kept in a journal in the store
 * with a TTL, so a redelivery after a restart is still recognised.
 */
import { createHash } from 'node:crypto';
import type { Store } from '../store/store.ts';
import { createJournal } from './journal.ts';

/** Remembers which deliveries were already seen. */
export interface Dedupe {
  /** True the first time `key` is seen (within the TTL), false for every repeat. */
  firstTime(key: string): Promise<boolean>;
  /**
   * Whether `key` was seen (within the TTL), without marking it: the gateway checks first, records
   * the message in its inbox, and only then marks it ({@link firstTime}), so that a crash between
   * the two never leaves a message marked seen that nobody kept.
   */
  seen(key: string): Promise<boolean>;
  /** Forgets `key`, so its next delivery counts as the first (a delivery that could not be taken). */
  forget(key: string): Promise<void>;
}

/** Options of {@link createDedupe}. */
export interface DedupeOptions {
  /** How long a key is remembered, in seconds (default 86,400: a day). */
  ttlSeconds?: number;
  /** Clock in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
}

/**
 * Creates a {@link Dedupe} over `store`: a {@link createJournal journal} named `dedupe`, so seeing a
 * delivery costs one appended record, not a file. Of two concurrent deliveries of one key exactly
 * one is first (within this process).
 *
 * @example
 * const dedupe = createDedupe(store);
 * if (!(await dedupe.firstTime(message.dedupeKey))) return;
 */
export function createDedupe(store: Store, options: DedupeOptions = {}): Dedupe {
  const seen = createJournal<1>(store, { name: 'dedupe', ttlSeconds: options.ttlSeconds ?? 86_400, now: options.now });
  return {
    firstTime: (key) => seen.setIfAbsent(key, 1),
    seen: async (key) => (await seen.get(key)) !== undefined,
    forget: (key) => seen.delete(key),
  };
}

/**
 * Any text as one store key segment: percent-encoded (so `:`, `/` and `.` cannot split or escape
 * the key), and a hash when it would make a file name too long. Distinct texts give distinct
 * segments (up to hash collisions of very long texts).
 */
export function keySegment(text: string): string {
  const encoded = encodeURIComponent(text).replace(/[.*!'()~]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
  if (encoded === '') return '%';
  if (encoded.length <= 160) return encoded;
  return `~${createHash('sha256').update(text).digest('hex')}`;
}

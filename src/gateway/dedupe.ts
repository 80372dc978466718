/**
 * Inbound dedupe: platforms redeliver updates (webhook retries, a restart re-polling), and a
 * redelivered message must not be answered twice. Seen keys are kept in a journal in the store
 * with a TTL, so a redelivery after a restart is still recognised.
 *
 * When the journal finds itself damaged and records whose keys it cannot read are lost (see
 * `journal-damage.ts`), dedupe fails closed: "never answered twice" wins over "never lost". Until
 * the lost records would have expired anyway (the TTL after the damaged segment's last write, so at
 * most the TTL after the damage was found), a message the platform says was sent before the damage
 * was found counts as already seen, or, when the damaged segment is an older one, before that
 * segment's end plus a minute for clock skew (a lost record was written before both): it is not
 * answered, and each such message is logged with a running count. Messages without a platform time
 * (`sentAt`: the web chat, the terminal) count as new. The window is kept in the store
 * (`dedupe-damage`), so a restart keeps it. A message waiting in the inbox is answered from there
 * whatever dedupe says: callers check the inbox first. A damaged record whose key is still
 * readable is kept as seen, and needs no window.
 */
import { createHash } from 'node:crypto';
import type { Store } from '../store/store.ts';
import { createJournal, describeJournalDamage, type JournalDamage } from './journal.ts';

/** Remembers which deliveries were already seen. */
export interface Dedupe {
  /**
   * True the first time `key` is seen (within the TTL), false for every repeat, and false for a
   * message sent (`sentAt`, the platform's time in ms) before records were lost (see the module
   * comment). A true answer records the key.
   */
  firstTime(key: string, sentAt?: number): Promise<boolean>;
  /**
   * Whether `key` was seen, or counts as seen because it was sent before records were lost;
   * records nothing new (a message it refuses is recorded, so it is logged once).
   */
  seen(key: string, sentAt?: number): Promise<boolean>;
  /** Forgets `key`, so its next delivery counts as the first (a delivery that could not be taken). */
  forget(key: string): Promise<void>;
  /** While dedupe fails closed after damage: the window and how many messages it refused so far. */
  damageWindow(): DedupeDamageWindow | undefined;
}

/** Dedupe's fail-closed window after its journal lost records (ms since the epoch). */
export interface DedupeDamageWindow {
  /** Messages sent before this count as seen... */
  sentBefore: number;
  /** ...until this moment. */
  until: number;
  /** Messages refused so far by this process for it. */
  refused: number;
}

/** Options of {@link createDedupe}. */
export interface DedupeOptions {
  /** How long a key is remembered, in seconds (default 86,400: a day). */
  ttlSeconds?: number;
  /** Clock in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
  /** Told about damage found in the dedupe journal (see `JournalOptions.onDamage`; default: stderr). */
  onDamage?: (report: JournalDamage) => void;
  /** Where a message refused by the fail-closed rule is logged (default: stderr). */
  log?: (line: string) => void;
}

/** The store key of the fail-closed window. */
const windowKey = 'dedupe-damage';
/** How far a platform's clock may run ahead of ours. */
const clockSkewMs = 60_000;

/**
 * Creates a {@link Dedupe} over `store`: a {@link createJournal journal} named `dedupe`, so seeing a
 * delivery costs one appended record, not a file. Of two concurrent deliveries of one key exactly
 * one is first (within this process).
 *
 * @example
 * const dedupe = createDedupe(store, { onDamage: (report) => health.reportDamage(report) });
 * if (!(await dedupe.firstTime(message.dedupeKey, message.sentAt))) return;
 */
export function createDedupe(store: Store, options: DedupeOptions = {}): Dedupe {
  const now = options.now ?? Date.now;
  const ttlMs = (options.ttlSeconds ?? 86_400) * 1000;
  const log = options.log ?? ((line: string) => process.stderr.write(`operator: ${line}\n`));
  let window: { sentBefore: number; until: number } | undefined;
  /** Whether `window` changed since it was last written to the store. */
  let unsaved = false;
  let refused = 0;
  let restored: Promise<void> | undefined;

  const seen = createJournal<1>(store, {
    name: 'dedupe',
    ttlSeconds: ttlMs / 1000,
    now,
    // A half-written record that still names its key: that key was seen.
    salvage: () => 1,
    onDamage(report) {
      // Lost records were written before the segment's end and before the damage was found.
      if (report.keysUnknown) widen({ sentBefore: Math.min(report.writtenUntil + clockSkewMs, report.foundAt), until: report.writtenUntil + ttlMs });
      if (options.onDamage) options.onDamage(report);
      else process.stderr.write(`operator: ${describeJournalDamage(report)}\n`);
    },
  });

  function widen(found: { sentBefore: number; until: number }): void {
    window = window === undefined ? found : { sentBefore: Math.max(window.sentBefore, found.sentBefore), until: Math.max(window.until, found.until) };
    unsaved = true;
  }

  /** The window kept by an earlier process (once), and this one's saved before any answer relies on it. */
  async function prepare(): Promise<void> {
    restored ??= store.get<{ sentBefore?: unknown; until?: unknown }>(windowKey).then((saved) => {
      if (typeof saved?.sentBefore === 'number' && typeof saved.until === 'number') {
        const keep = unsaved;
        widen({ sentBefore: saved.sentBefore, until: saved.until });
        unsaved = keep;
      }
    });
    try {
      await restored;
    } catch (error) {
      restored = undefined;
      throw error;
    }
    if (!unsaved || window === undefined) return;
    const left = Math.ceil((window.until - now()) / 1000);
    // Saved before a message is answered on the strength of it: a restart must keep refusing.
    if (left > 0) await store.set(windowKey, window, { ttlSeconds: left });
    unsaved = false;
  }

  function active(at: number): { sentBefore: number; until: number } | undefined {
    return window !== undefined && at < window.until ? window : undefined;
  }

  /** `known`, `refused` (sent before lost records: logged, recorded so it is logged once), or `new`. */
  async function classify(key: string, sentAt: number | undefined): Promise<'known' | 'refused' | 'new'> {
    const known = (await seen.get(key)) !== undefined;
    await prepare();
    if (known) return 'known';
    const damaged = active(now());
    if (damaged === undefined || sentAt === undefined || !Number.isFinite(sentAt) || sentAt >= damaged.sentBefore) return 'new';
    if (!(await seen.setIfAbsent(key, 1).catch(() => true))) return 'known';
    refused++;
    log(
      `dedupe: ${key} not answered: sent ${new Date(sentAt).toISOString()}, before records of the dedupe journal were lost ` +
        `(messages sent before ${new Date(damaged.sentBefore).toISOString()} may have been answered already); ${refused} refused so far`,
    );
    return 'refused';
  }

  return {
    async firstTime(key, sentAt) {
      if ((await classify(key, sentAt)) !== 'new') return false;
      return seen.setIfAbsent(key, 1);
    },
    seen: async (key, sentAt) => (await classify(key, sentAt)) !== 'new',
    forget: (key) => seen.delete(key),
    damageWindow() {
      const damaged = active(now());
      return damaged === undefined ? undefined : { ...damaged, refused };
    },
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

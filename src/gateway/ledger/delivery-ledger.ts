/**
 * The delivery ledger: every logical reply is recorded before it is sent and marked when
 * delivered, so a crash between the answer and its delivery neither loses nor doubles it. After a
 * restart `pending()` lists what still has to go out, and `claim()` makes sure only one sender
 * sends each entry.
 *
 * Only the {@link Store} interface is used, so it works on the filesystem, in memory and on Redis.
 * Keys (ids sort by creation time):
 * - `ledger:entry:<id>`: the {@link LedgerEntry};
 * - `ledger:open:<id>`: present while the entry is pending (so a restart reads only these);
 * - `ledger:failed:<id>`: final failures, for `/status`;
 * - `ledger:claim:<id>`: held briefly by the one sender sending the entry;
 * - `ledger:turn:<turnId>`: the entry of a turn, so recording it twice gives one entry.
 */
import { randomBytes } from 'node:crypto';
import type { Store } from '../../store/store.ts';
import { keySegment } from '../dedupe.ts';
import { silentReplyText, type LedgerEntry, type NewLedgerEntry } from './ledger-entry.ts';

/** Records replies and tracks their delivery. */
export interface DeliveryLedger {
  /** Records a reply before sending it (status `pending`, or `silent` for `[SILENT]`); resolves to its id. */
  record(entry: NewLedgerEntry): Promise<string>;
  /** The entry, or `null` when unknown or expired. */
  get(id: string): Promise<LedgerEntry | null>;
  /**
   * Reserves a pending entry for sending: true for exactly one caller (per claim TTL), false when
   * someone else holds it or it is no longer pending. Call before sending a {@link pending} entry.
   */
  claim(id: string): Promise<boolean>;
  /** The platform accepted the reply; `platformIds` are the sent messages' ids. */
  markDelivered(id: string, platformIds: string[]): Promise<void>;
  /** A delivery attempt failed; `final` gives up (the entry then shows in {@link recentFailures}). */
  markFailed(id: string, error: string, options: { final: boolean }): Promise<void>;
  /** Entries recorded and not yet delivered or given up, oldest first: what to send after a restart. */
  pending(): Promise<LedgerEntry[]>;
  /** Final failures still retained (of one conversation, or all), oldest first, at most `limit` (the newest). */
  recentFailures(sessionKey?: string, limit?: number): Promise<LedgerEntry[]>;
}

/** Options of {@link createDeliveryLedger}. */
export interface DeliveryLedgerOptions {
  /** How long entries are kept, in days (default 7). */
  retentionDays?: number;
  /** How long a claim holds, in seconds (default 300): longer than any one send with its retries. */
  claimTtlSeconds?: number;
  /** The clock, in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
}

/** A pending marker without an entry older than this was left by a crash. */
const staleMarkerMs = 60_000;

/** Longest error message kept per entry. */
const maxErrorLength = 500;

/**
 * Creates a {@link DeliveryLedger} over `store`.
 *
 * @example
 * const id = await ledger.record({ sessionKey, address, text, turnId });
 * const sent = await adapter.send(address, { text });
 * await ledger.markDelivered(id, sent.ids);
 * // after a restart:
 * for (const entry of await ledger.pending()) if (await ledger.claim(entry.id)) resend(entry);
 */
export function createDeliveryLedger(store: Store, options: DeliveryLedgerOptions = {}): DeliveryLedger {
  const now = options.now ?? Date.now;
  const ttlSeconds = (options.retentionDays ?? 7) * 86_400;
  const claimTtlSeconds = options.claimTtlSeconds ?? 300;
  const newId = idGenerator(now);

  /** Read-modify-write of one entry under its lock; `change` returns false to leave it alone. */
  async function update(id: string, change: (entry: LedgerEntry) => boolean): Promise<LedgerEntry> {
    return store.withLock(entryKey(id), async () => {
      const entry = await store.get<LedgerEntry>(entryKey(id));
      if (!entry) throw new Error(`Unknown delivery ledger entry ${id} (never recorded, or expired)`);
      if (change(entry)) {
        entry.updatedAt = now();
        await store.set(entryKey(id), entry, { ttlSeconds });
      }
      return entry;
    });
  }

  /** A marker without its entry: left by a crash inside record(), unless record() is running now. */
  async function isStaleMarker(id: string): Promise<boolean> {
    const createdAt = await store.get<number>(openKey(id));
    return createdAt === null || now() - createdAt > staleMarkerMs;
  }

  async function entries(ids: string[]): Promise<{ id: string; entry: LedgerEntry | null }[]> {
    return Promise.all(ids.map(async (id) => ({ id, entry: await store.get<LedgerEntry>(entryKey(id)) })));
  }

  return {
    async record(input) {
      const turnKey = `ledger:turn:${keySegment(input.turnId)}`;
      return store.withLock(turnKey, async () => {
        const existing = await store.get<string>(turnKey);
        if (existing !== null && (await store.get(entryKey(existing))) !== null) return existing;
        const createdAt = now();
        const silent = input.text.trim() === silentReplyText;
        const entry: LedgerEntry = {
          id: newId(),
          sessionKey: input.sessionKey,
          address: input.address,
          text: input.text,
          replyTo: input.replyTo,
          turnId: input.turnId,
          status: silent ? 'silent' : 'pending',
          createdAt,
          updatedAt: createdAt,
          attempts: 0,
        };
        // The open marker first: a crash before the entry leaves a marker pending() drops, never
        // an entry nobody would send.
        if (!silent) await store.set(openKey(entry.id), createdAt, { ttlSeconds });
        await store.set(entryKey(entry.id), entry, { ttlSeconds });
        await store.set(turnKey, entry.id, { ttlSeconds });
        return entry.id;
      });
    },

    get: (id) => store.get<LedgerEntry>(entryKey(id)),

    async claim(id) {
      if (!(await store.setIfAbsent(`ledger:claim:${id}`, now(), { ttlSeconds: claimTtlSeconds }))) return false;
      const entry = await store.get<LedgerEntry>(entryKey(id));
      return entry?.status === 'pending';
    },

    async markDelivered(id, platformIds) {
      await update(id, (entry) => {
        if (entry.status !== 'pending' && entry.status !== 'failed') return false;
        entry.status = 'delivered';
        entry.platformIds = [...platformIds];
        return true;
      });
      await store.delete(openKey(id));
      await store.delete(failedKey(id));
    },

    async markFailed(id, error, { final }) {
      const entry = await update(id, (current) => {
        if (current.status !== 'pending') return false;
        current.attempts++;
        current.error = error.length > maxErrorLength ? `${error.slice(0, maxErrorLength - 3)}...` : error;
        if (final) current.status = 'failed';
        return true;
      });
      if (entry.status !== 'failed') return;
      await store.set(failedKey(id), { sessionKey: entry.sessionKey }, { ttlSeconds });
      await store.delete(openKey(id));
    },

    async pending() {
      const found = await entries(idsOf(await store.list('ledger:open:'), 'ledger:open:'));
      const pending: LedgerEntry[] = [];
      for (const { id, entry } of found) {
        if (entry?.status === 'pending') pending.push(entry);
        else if (entry !== null || (await isStaleMarker(id))) await store.delete(openKey(id));
      }
      return pending.sort(byCreation);
    },

    async recentFailures(sessionKey, limit = 20) {
      const keys = await store.list('ledger:failed:');
      const markers = await Promise.all(keys.map(async (key) => ({ key, marker: await store.get<{ sessionKey: string }>(key) })));
      const ids = markers
        .filter(({ marker }) => marker !== null && (sessionKey === undefined || marker.sessionKey === sessionKey))
        .map(({ key }) => key.slice('ledger:failed:'.length));
      const failed = (await entries(ids)).flatMap(({ entry }) => (entry?.status === 'failed' ? [entry] : []));
      return failed.sort(byCreation).slice(-limit);
    },
  };
}

function entryKey(id: string): string {
  return `ledger:entry:${id}`;
}

function openKey(id: string): string {
  return `ledger:open:${id}`;
}

function failedKey(id: string): string {
  return `ledger:failed:${id}`;
}

function idsOf(keys: string[], prefix: string): string[] {
  return keys.map((key) => key.slice(prefix.length));
}

function byCreation(a: LedgerEntry, b: LedgerEntry): number {
  return a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
}

/**
 * Ids that sort by creation: base-36 time, a per-process sequence (order within a millisecond)
 * and random bits (no clash between processes), e.g. `0mi9x2k1c-0003-9f2a1b`.
 */
function idGenerator(now: () => number): () => string {
  let sequence = 0;
  return () => `${now().toString(36).padStart(9, '0')}-${(sequence++ % 1_679_616).toString(36).padStart(4, '0')}-${randomBytes(3).toString('hex')}`;
}

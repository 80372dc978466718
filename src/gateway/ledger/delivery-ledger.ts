/**
 * The delivery ledger: every logical reply is recorded before it is sent and marked when
 * delivered, so a crash between the answer and its delivery neither loses nor doubles it. After a
 * restart `pending()` lists what still has to go out, and `claim()` makes sure only one sender
 * sends each entry.
 *
 * Only the {@link Store} interface is used, so it works on the filesystem, in memory and on Redis.
 * An entry's id is its `turnId` as a key segment, so recording needs no lookup: a delivered reply
 * costs one write to record, then one read, one write and one delete to mark. Keys:
 * - `ledger:open:<id>`: the entry while it is pending (recorded, neither delivered nor given up)
 *   with its recording order, so a restart reads only these;
 * - `ledger:entry:<id>`: the entry once settled (delivered, failed or silent). Reads prefer it to
 *   an open key beside it, which is a leftover (a crash inside `markDelivered`, or the turn
 *   recorded again after it settled) that `pending()` removes. Marks read only the open key when
 *   there is one, so a turn recorded and sent again is settled again with that send's outcome;
 * - `ledger:failed:<id>`: final failures, for `/status`;
 * - `ledger:claim:<id>`: held briefly by the one sender sending the entry.
 *
 * Entries of the earlier layout (random ids; `ledger:open:<id>` holding the creation time beside
 * the entry in `ledger:entry:<id>` in every state; `ledger:turn:<turnId>` mapping turns to ids)
 * are still listed, claimed and marked, so replies left pending by an older version go out after
 * the upgrade; nothing writes that layout any more and it expires with the retention. A turn
 * recorded by the older version and again by this one would get a second entry, but a turn is
 * recorded again only if its inbound message is processed again, which the gateway's dedupe
 * prevents for a day.
 */
import type { Store } from '../../store/store.ts';
import { keySegment } from '../dedupe.ts';
import { silentReplyText, type LedgerEntry, type NewLedgerEntry } from './ledger-entry.ts';

/** Records replies and tracks their delivery. */
export interface DeliveryLedger {
  /**
   * Records a reply before sending it (status `pending`, or `silent` for `[SILENT]`); resolves to
   * its id. Recording a `turnId` again gives the same id and still one entry: a pending one is
   * recorded afresh, a settled one stays settled.
   */
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

/**
 * How long an open key of the earlier layout (a creation time) may go without its entry: an older
 * version still running beside this one writes the entry just after it. Older ones were left by a
 * crash.
 */
const staleMarkerMs = 60_000;

/** Longest error message kept per entry. */
const maxErrorLength = 500;

/**
 * Creates a {@link DeliveryLedger} over `store`.
 *
 * @example
 * const id = await ledger.record({ sessionKey, address, text, turnId, previewId });
 * const sent = await adapter.send(address, { text });
 * await ledger.markDelivered(id, sent.ids);
 * // after a restart:
 * for (const entry of await ledger.pending()) if (await ledger.claim(entry.id)) resend(entry);
 */
export function createDeliveryLedger(store: Store, options: DeliveryLedgerOptions = {}): DeliveryLedger {
  const now = options.now ?? Date.now;
  const ttlSeconds = (options.retentionDays ?? 7) * 86_400;
  const claimTtlSeconds = options.claimTtlSeconds ?? 300;

  /** The entry as it is now: settled if it is, else pending; `null` when unknown or expired. */
  async function current(id: string): Promise<LedgerEntry | null> {
    const settled = await store.get(entryKey(id));
    if (isEntry(settled)) return settled;
    return asOpen(await store.get(openKey(id)))?.entry ?? null;
  }

  /**
   * The entry to update (the caller holds its lock): the open one when there is one, a single
   * read on the common path; else the settled one or one of the earlier layout. `order` is set
   * when it came from the open key, `hasOpenKey` when an open key exists at all.
   */
  async function forUpdate(id: string): Promise<{ entry: LedgerEntry; order?: number; hasOpenKey: boolean }> {
    const stored = await store.get(openKey(id));
    const open = asOpen(stored);
    if (open) return { entry: open.entry, order: open.order, hasOpenKey: true };
    const settled = await store.get(entryKey(id));
    if (!isEntry(settled)) throw new Error(`Unknown delivery ledger entry ${id} (never recorded, or expired)`);
    return { entry: settled, hasOpenKey: stored !== null };
  }

  return {
    async record(input) {
      const id = keySegment(input.turnId);
      const createdAt = now();
      const silent = input.text.trim() === silentReplyText;
      const entry: LedgerEntry = {
        id,
        sessionKey: input.sessionKey,
        address: input.address,
        text: input.text,
        replyTo: input.replyTo,
        previewId: input.previewId,
        turnId: input.turnId,
        status: silent ? 'silent' : 'pending',
        createdAt,
        updatedAt: createdAt,
        attempts: 0,
      };
      // One write and no read: a pending entry lives in its open key, all pending() reads.
      // Recording the turn again writes the same key again, so it stays one entry.
      await store.withLock(entryKey(id), () =>
        silent ? store.set(entryKey(id), entry, { ttlSeconds }) : store.set(openKey(id), { entry, order: recordOrder++ } satisfies OpenValue, { ttlSeconds }),
      );
      return id;
    },

    get: current,

    async claim(id) {
      if (!(await store.setIfAbsent(`ledger:claim:${id}`, now(), { ttlSeconds: claimTtlSeconds }))) return false;
      return (await current(id))?.status === 'pending';
    },

    async markDelivered(id, platformIds) {
      await store.withLock(entryKey(id), async () => {
        const { entry, hasOpenKey } = await forUpdate(id);
        if (entry.status === 'pending' || entry.status === 'failed') {
          const delivered: LedgerEntry = { ...entry, status: 'delivered', platformIds: [...platformIds], updatedAt: now() };
          // Settled before the open key goes: a crash in between leaves a leftover, never a resend.
          await store.set(entryKey(id), delivered, { ttlSeconds });
          if (entry.status === 'failed') await store.delete(failedKey(id));
        }
        if (hasOpenKey) await store.delete(openKey(id));
      });
    },

    async markFailed(id, error, { final }) {
      await store.withLock(entryKey(id), async () => {
        const { entry, order, hasOpenKey } = await forUpdate(id);
        if (entry.status !== 'pending') return;
        entry.attempts++;
        entry.error = error.length > maxErrorLength ? `${error.slice(0, maxErrorLength - 3)}...` : error;
        entry.updatedAt = now();
        if (!final) {
          // Still pending: kept where it was.
          if (order === undefined) await store.set(entryKey(id), entry, { ttlSeconds });
          else await store.set(openKey(id), { entry, order } satisfies OpenValue, { ttlSeconds });
          return;
        }
        entry.status = 'failed';
        // Listed first: a crash before the entry settles leaves it pending, to be retried after
        // the restart, rather than given up without showing in /status.
        await store.set(failedKey(id), { sessionKey: entry.sessionKey }, { ttlSeconds });
        await store.set(entryKey(id), entry, { ttlSeconds });
        if (hasOpenKey) await store.delete(openKey(id));
      });
    },

    async pending() {
      const ids = idsOf(await store.list('ledger:open:'), 'ledger:open:');
      // The open key first: if markDelivered settles the entry between the two reads, the
      // settled entry is then seen, rather than neither.
      const found = await Promise.all(ids.map(async (id) => ({ id, stored: await store.get(openKey(id)), settled: await store.get(entryKey(id)) })));
      const pending: { entry: LedgerEntry; order?: number }[] = [];
      for (const { id, stored, settled } of found) {
        const open = asOpen(stored);
        if (isEntry(settled)) {
          // An entry of the earlier layout is pending in its entry key; anything else settled
          // leaves the open key a leftover.
          if (settled.status === 'pending') pending.push({ entry: settled });
          else await store.delete(openKey(id));
        } else if (open) pending.push(open);
        else if (!isFreshEarlierMarker(stored, now())) await store.delete(openKey(id));
      }
      return pending.sort(byCreation).map(({ entry }) => entry);
    },

    async recentFailures(sessionKey, limit = 20) {
      const keys = await store.list('ledger:failed:');
      const markers = await Promise.all(keys.map(async (key) => ({ key, marker: await store.get<{ sessionKey: string }>(key) })));
      const ids = markers
        .filter(({ marker }) => marker !== null && (sessionKey === undefined || marker.sessionKey === sessionKey))
        .map(({ key }) => key.slice('ledger:failed:'.length));
      const settled = await Promise.all(ids.map((id) => store.get(entryKey(id))));
      const failed = settled.flatMap((entry) => (isEntry(entry) && entry.status === 'failed' ? [{ entry }] : []));
      return failed.sort(byCreation).slice(-limit).map(({ entry }) => entry);
    },
  };
}

/**
 * What an open key holds: the pending entry, and its rank among the entries this process recorded.
 * Ids come from turn ids, so they no longer order entries recorded in the same millisecond.
 */
interface OpenValue {
  entry: LedgerEntry;
  order: number;
}

/** Rank of the next entry recorded by this process. */
let recordOrder = 0;

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

/** Oldest first: by creation time, then recording order (when both have one), then id. */
function byCreation(a: { entry: LedgerEntry; order?: number }, b: { entry: LedgerEntry; order?: number }): number {
  const byTime = a.entry.createdAt - b.entry.createdAt;
  if (byTime !== 0) return byTime;
  if (a.order !== undefined && b.order !== undefined && a.order !== b.order) return a.order - b.order;
  return a.entry.id < b.entry.id ? -1 : a.entry.id > b.entry.id ? 1 : 0;
}

/** True for a stored entry. */
function isEntry(value: unknown): value is LedgerEntry {
  return typeof value === 'object' && value !== null && typeof (value as LedgerEntry).id === 'string' && typeof (value as LedgerEntry).status === 'string';
}

/** The open key's value, or `null` for none or one of the earlier layout (a creation time). */
function asOpen(value: unknown): OpenValue | null {
  if (typeof value !== 'object' || value === null) return null;
  const { entry, order } = value as Partial<OpenValue>;
  return isEntry(entry) && typeof order === 'number' ? { entry, order } : null;
}

/** An open key of the earlier layout (its creation time) young enough that its entry may still come. */
function isFreshEarlierMarker(open: unknown, now: number): boolean {
  return typeof open === 'number' && now - open <= staleMarkerMs;
}

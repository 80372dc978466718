/**
 * The delivery ledger: every logical reply is recorded before it is sent and marked when
 * delivered, so a crash between the answer and its delivery neither loses nor doubles it. After a
 * restart `pending()` lists what still has to go out, and `claim()` makes sure only one sender
 * sends each entry.
 *
 * Pending entries live in a {@link createJournal journal} named `ledger`: recording a reply and
 * marking it delivered are one appended record each, with no file created or deleted per reply.
 * A delivered (or `[SILENT]`) reply leaves the ledger: the session keeps its text, and holding
 * every delivered reply in memory for a day would grow with traffic. Final failures are written
 * to `ledger:failed:<id>` and kept for `retentionDays`, for `/status`. The gateway never records a
 * delivered turn again: its inbound message is deduplicated, and a restart does not answer again
 * a message whose reply was on record (`answers`).
 *
 * Only the {@link Store} interface is used, so it works on the filesystem, in memory and on
 * Redis. An entry's id is its `turnId` as a key segment, so recording needs no lookup.
 *
 * Replies left pending by earlier versions (one store key per entry under `ledger:open:`) are
 * moved into the journal when the ledger is first used, so they still go out after an upgrade.
 */
import type { Store } from '../../store/store.ts';
import { keySegment } from '../dedupe.ts';
import { createJournal, type JournalDamage } from '../journal.ts';
import { silentReplyText, type DeliveryProgress, type LedgerEntry, type NewLedgerEntry } from './ledger-entry.ts';

/** Records replies and tracks their delivery. */
export interface DeliveryLedger {
  /**
   * Records a reply before sending it (status `pending`; a `[SILENT]` one is not kept); resolves
   * to its id. Recording a pending `turnId` again gives the same id and still one entry.
   */
  record(entry: NewLedgerEntry): Promise<string>;
  /** The entry while pending or given up (failed), else `null` (delivered, silent, unknown or expired). */
  get(id: string): Promise<LedgerEntry | null>;
  /**
   * Reserves a pending entry for sending: true for exactly one caller (per claim TTL), false when
   * someone else holds it or it is no longer pending. Call before sending a {@link pending} entry.
   */
  claim(id: string): Promise<boolean>;
  /** The platform accepted the reply (`platformIds`: the sent messages' ids); the entry is done. */
  markDelivered(id: string, platformIds: string[]): Promise<void>;
  /** Parts of a reply arrived (its text, some of its files); the entry stays pending. */
  markProgress(id: string, sent: DeliveryProgress): Promise<void>;
  /** A delivery attempt failed; `final` gives up (the entry then shows in {@link recentFailures}). */
  markFailed(id: string, error: string, options: { final: boolean }): Promise<void>;
  /** Entries recorded and not yet delivered or given up, oldest first: what to send after a restart. */
  pending(): Promise<LedgerEntry[]>;
  /** Final failures still retained (of one conversation, or all), oldest first, at most `limit` (the newest). */
  recentFailures(sessionKey?: string, limit?: number): Promise<LedgerEntry[]>;
}

/** Options of {@link createDeliveryLedger}. */
export interface DeliveryLedgerOptions {
  /**
   * How long a pending entry is kept, in hours (default 24, the inbox's replay window): a reply
   * not delivered within this time (the gateway was down that long) is not sent after a restart.
   */
  keepHours?: number;
  /** How long final failures are kept for `/status`, in days (default 7). */
  retentionDays?: number;
  /** How long a claim holds, in seconds (default 300): longer than any one send with its retries. */
  claimTtlSeconds?: number;
  /** The clock, in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
  /** Told about damage found in the ledger's journal: pending replies may be lost (see `JournalOptions.onDamage`). */
  onDamage?: (report: JournalDamage) => void;
}

/** Longest error message kept per entry. */
const maxErrorLength = 500;

/**
 * A journal value: a pending entry (the journal holds no other) and its rank among the entries
 * this process recorded, which orders entries of the same millisecond.
 */
interface Stored {
  e: LedgerEntry;
  o: number;
}

/** Rank of the next entry recorded by this process. */
let recordOrder = 0;

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
  const failureTtlSeconds = (options.retentionDays ?? 7) * 86_400;
  const claimTtlSeconds = options.claimTtlSeconds ?? 300;
  const journal = createJournal<Stored>(store, { name: 'ledger', ttlSeconds: (options.keepHours ?? 24) * 3_600, now, onDamage: options.onDamage });
  let imported: Promise<void> | undefined;

  /** The journal, with entries of earlier versions moved in (once; tried again after a failure). */
  async function ready(): Promise<void> {
    imported ??= importEarlierEntries(store, (entry) => journal.set(entry.id, { e: entry, o: recordOrder++ }));
    try {
      await imported;
    } catch (error) {
      imported = undefined;
      throw error;
    }
  }

  async function stored(id: string): Promise<Stored | undefined> {
    await ready();
    return journal.get(id);
  }

  /** The stored entry to update, or an error naming the id. */
  async function forUpdate(id: string): Promise<Stored> {
    const found = await stored(id);
    if (!found) throw new Error(`Unknown delivery ledger entry ${id} (never recorded, or expired)`);
    return found;
  }

  return {
    async record(input) {
      const id = keySegment(input.turnId);
      const previous = await stored(id);
      if (input.text.trim() === silentReplyText) {
        // Nothing to deliver; a pending entry of the same turn (an earlier answer) is replaced by silence.
        if (previous) await journal.delete(id);
        return id;
      }
      const createdAt = now();
      const entry: LedgerEntry = {
        id,
        sessionKey: input.sessionKey,
        address: input.address,
        text: input.text,
        ...(input.files && input.files.length > 0 ? { files: input.files } : {}),
        replyTo: input.replyTo,
        previewId: input.previewId,
        turnId: input.turnId,
        answers: input.answers,
        status: 'pending',
        createdAt,
        updatedAt: createdAt,
        attempts: 0,
      };
      const order = previous?.o ?? recordOrder++;
      await journal.set(id, { e: entry, o: order });
      return id;
    },

    async get(id) {
      const found = await stored(id);
      if (found) return found.e;
      // Past the journal's window a final failure is still kept for /status.
      const failed = await store.get(failedKey(id));
      return isEntry(failed) ? failed : null;
    },

    async claim(id) {
      if (!(await stored(id))) return false;
      if (!(await store.setIfAbsent(`ledger:claim:${id}`, now(), { ttlSeconds: claimTtlSeconds }))) return false;
      return (await stored(id)) !== undefined;
    },

    async markDelivered(id) {
      await store.withLock(lockKey(id), async () => {
        await forUpdate(id);
        await journal.delete(id);
      });
    },

    async markProgress(id, sent) {
      await store.withLock(lockKey(id), async () => {
        const { e: entry, o: order } = await forUpdate(id);
        const progress: DeliveryProgress = { files: [...sent.files], ...(sent.text ? { text: [...sent.text] } : {}), ...(sent.textParts ? { textParts: [...sent.textParts] } : {}) };
        await journal.set(id, { e: { ...entry, sent: progress, updatedAt: now() }, o: order });
      });
    },

    async markFailed(id, error, { final }) {
      await store.withLock(lockKey(id), async () => {
        const { e: entry, o: order } = await forUpdate(id);
        const updated: LedgerEntry = {
          ...entry,
          attempts: entry.attempts + 1,
          error: error.length > maxErrorLength ? `${error.slice(0, maxErrorLength - 3)}...` : error,
          updatedAt: now(),
        };
        if (!final) {
          await journal.set(id, { e: updated, o: order });
          return;
        }
        const failed: LedgerEntry = { ...updated, status: 'failed' };
        // Listed first: a crash before the entry settles leaves it pending, to be retried after
        // the restart (recentFailures skips a listing whose entry is still pending).
        await store.set(failedKey(id), failed, { ttlSeconds: failureTtlSeconds });
        await journal.delete(id);
      });
    },

    async pending() {
      await ready();
      const pending = (await journal.entries()).map(([, value]) => value);
      return pending.sort(byCreation).map((value) => value.e);
    },

    async recentFailures(sessionKey, limit = 20) {
      await ready();
      const keys = await store.list('ledger:failed:');
      const found = await Promise.all(
        keys.map(async (key) => {
          const id = key.slice('ledger:failed:'.length);
          // A listing whose entry is still pending is a final failure a crash cut short.
          if (await journal.get(id)) return undefined;
          return failedEntry(store, id, await store.get(key));
        }),
      );
      const failed = found.filter((entry): entry is LedgerEntry => entry !== undefined && (sessionKey === undefined || entry.sessionKey === sessionKey));
      return failed.sort((a, b) => a.createdAt - b.createdAt).slice(-limit);
    },
  };
}

/** A failure listing's entry: the entry itself, or (earlier versions) the session key beside a separate entry key. */
async function failedEntry(store: Store, id: string, listed: unknown): Promise<LedgerEntry | undefined> {
  if (isEntry(listed)) return listed.status === 'failed' ? listed : undefined;
  if (listed === null) return undefined;
  const earlier = await store.get(`ledger:entry:${id}`);
  return isEntry(earlier) && earlier.status === 'failed' ? earlier : undefined;
}

/**
 * Moves replies that earlier versions left pending into the journal, then removes their keys.
 * Those versions kept a pending reply under `ledger:open:<id>`, either as `{ entry, order }` or as
 * a creation time beside the entry in `ledger:entry:<id>` (with `ledger:turn:<turn>` mapping its
 * turn); an open key beside a settled entry, or without any entry, is a leftover of a crash.
 */
async function importEarlierEntries(store: Store, add: (entry: LedgerEntry) => Promise<void>): Promise<void> {
  const ids = (await store.list('ledger:open:')).map((key) => key.slice('ledger:open:'.length));
  const earlier = await Promise.all(ids.map(async (id) => ({ id, open: await store.get(`ledger:open:${id}`), entry: await store.get(`ledger:entry:${id}`) })));
  const pending = earlier.flatMap(({ open, entry }) => {
    const found = isEntry(entry) ? entry : typeof open === 'object' && open !== null ? (open as { entry?: unknown }).entry : undefined;
    return isEntry(found) && found.status === 'pending' ? [found] : [];
  });
  for (const entry of pending.sort((a, b) => a.createdAt - b.createdAt)) await add(entry);
  for (const { id, entry } of earlier) {
    if (isEntry(entry)) {
      await store.delete(`ledger:turn:${keySegment(entry.turnId)}`);
      // A settled entry of the earlier layout stays until it expires: /status may list it.
      if (entry.status === 'pending') await store.delete(`ledger:entry:${id}`);
    }
    await store.delete(`ledger:open:${id}`);
  }
}

function failedKey(id: string): string {
  return `ledger:failed:${id}`;
}

/** The in-process lock of one entry's updates (no store key is written under it). */
function lockKey(id: string): string {
  return `ledger:lock:${id}`;
}

/** Oldest first: by creation time, then recording order. */
function byCreation(a: Stored, b: Stored): number {
  return a.e.createdAt - b.e.createdAt || a.o - b.o;
}

/** True for a stored entry. */
function isEntry(value: unknown): value is LedgerEntry {
  return typeof value === 'object' && value !== null && typeof (value as LedgerEntry).id === 'string' && typeof (value as LedgerEntry).status === 'string';
}

/**
 * A journal of small keyed values that expire: every change is one record appended to a log in
 * the store, the current values are kept in memory, and the logs are read back once at first use
 * (a restart). The gateway's per-message bookkeeping (which deliveries were seen, which messages
 * wait for an answer) goes through it: on the filesystem an append to an open log costs a fraction
 * of creating and deleting a file per message, which ext4 makes slow under bursts.
 *
 * Logs are segments of `ttl / 24` each (`journal:<name>:<segment number>`); a segment older than
 * the TTL holds only expired values and is deleted. A torn last record (a crash mid-append) is
 * skipped. One process per store: another process's changes are seen only after a restart.
 */
import type { Store } from '../store/store.ts';

/** Options of {@link createJournal}. */
export interface JournalOptions {
  /** Names the logs (`journal:<name>:…`): letters, digits and `-`. */
  name: string;
  /** How long a value lives after it was set, in seconds. */
  ttlSeconds: number;
  /** Clock in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
}

/** Expiring keyed values, durable through the store. */
export interface Journal<T> {
  /** The value of `key`, if set within the TTL. */
  get(key: string): Promise<T | undefined>;
  /** Sets `key` unless it holds a live value; true when it did. Atomic within the process. */
  setIfAbsent(key: string, value: T): Promise<boolean>;
  /** Sets `key` (its TTL starts again). */
  set(key: string, value: T): Promise<void>;
  delete(key: string): Promise<void>;
  /** The live values, in the order they were set. */
  entries(): Promise<[string, T][]>;
}

/** One record of a journal log. */
type JournalRecord<T> = { k: string; t: number; v: T } | { k: string; t: number; x: 1 };

/**
 * Creates a {@link Journal} over `store`.
 *
 * @example
 * const seen = createJournal<1>(store, { name: 'dedupe', ttlSeconds: 86_400 });
 * if (!(await seen.setIfAbsent(updateKey, 1))) return; // a redelivery
 */
export function createJournal<T>(store: Store, options: JournalOptions): Journal<T> {
  if (!/^[A-Za-z0-9-]+$/.test(options.name)) throw new TypeError(`Invalid journal name ${JSON.stringify(options.name)}`);
  const now = options.now ?? Date.now;
  const ttlMs = options.ttlSeconds * 1000;
  const segmentMs = Math.max(1_000, Math.floor(ttlMs / 24));
  const prefix = `journal:${options.name}:`;
  const values = new Map<string, { t: number; v: T }>();
  /** The segment last swept: expired values leave memory and old logs the store once a segment. */
  let swept = -1;
  let loading: Promise<void> | undefined;

  const live = (entry: { t: number } | undefined, at: number) => entry !== undefined && at - entry.t < ttlMs;

  /** The segment numbers with a log, ascending. */
  async function segments(): Promise<number[]> {
    // Listings name logs by key on the filesystem and by record (`<log key>:<n>`) elsewhere.
    const numbers = new Set((await store.list(prefix)).map((key) => Number(key.slice(prefix.length).split(':')[0])));
    return [...numbers].filter((segment) => Number.isSafeInteger(segment)).sort((a, b) => a - b);
  }

  async function load(): Promise<void> {
    const at = now();
    for (const segment of await segments()) {
      if (isExpired(segment, at)) {
        await store.deleteLog(prefix + segment);
        continue;
      }
      for (const line of await store.readLog(prefix + segment)) {
        const record = parse<T>(line);
        if (!record) continue;
        values.delete(record.k);
        if ('v' in record) values.set(record.k, { t: record.t, v: record.v });
      }
    }
    swept = Math.floor(at / segmentMs);
  }

  function isExpired(segment: number, at: number): boolean {
    // Everything in a segment was set before its end; past the end plus the TTL, all of it expired.
    return (segment + 1) * segmentMs + ttlMs <= at;
  }

  /** Once per segment: drops expired values from memory and expired logs from the store. */
  async function sweep(at: number): Promise<void> {
    const segment = Math.floor(at / segmentMs);
    if (segment === swept) return;
    swept = segment;
    for (const [key, entry] of values) if (!live(entry, at)) values.delete(key);
    for (const segment of await segments()) if (isExpired(segment, at)) await store.deleteLog(prefix + segment);
  }

  async function ready(): Promise<number> {
    loading ??= load();
    try {
      await loading;
    } catch (error) {
      // A failed load (the store was unreachable) is tried again by the next call.
      loading = undefined;
      throw error;
    }
    const at = now();
    await sweep(at);
    return at;
  }

  function append(record: JournalRecord<T>): Promise<void> {
    return store.append(prefix + Math.floor(record.t / segmentMs), JSON.stringify(record));
  }

  return {
    async get(key) {
      const at = await ready();
      const entry = values.get(key);
      return live(entry, at) ? entry!.v : undefined;
    },

    async setIfAbsent(key, value) {
      const at = await ready();
      if (live(values.get(key), at)) return false;
      // Claimed in memory before the append, so a concurrent call sees it; undone if the append fails.
      const entry = { t: at, v: value };
      values.delete(key);
      values.set(key, entry);
      try {
        await append({ k: key, t: at, v: value });
      } catch (error) {
        if (values.get(key) === entry) values.delete(key);
        throw error;
      }
      return true;
    },

    async set(key, value) {
      const at = await ready();
      await append({ k: key, t: at, v: value });
      values.delete(key);
      values.set(key, { t: at, v: value });
    },

    async delete(key) {
      const at = await ready();
      if (!values.has(key)) return;
      await append({ k: key, t: at, x: 1 });
      values.delete(key);
    },

    async entries() {
      const at = await ready();
      return [...values].filter(([, entry]) => live(entry, at)).map(([key, entry]) => [key, entry.v]);
    },
  };
}

/** A record, or undefined for a torn or foreign line. */
function parse<T>(line: string): JournalRecord<T> | undefined {
  try {
    const record = JSON.parse(line) as Partial<JournalRecord<T>> & { x?: unknown };
    if (typeof record.k !== 'string' || typeof record.t !== 'number') return undefined;
    if (!('v' in record) && record.x !== 1) return undefined;
    return record as JournalRecord<T>;
  } catch {
    return undefined;
  }
}

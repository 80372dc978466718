/**
 * A journal of small keyed values that expire: every change is one record appended to a log in
 * the store, the current values are kept in memory, and the logs are read back once at first use
 * (a restart). The gateway's per-message bookkeeping (which deliveries were seen, which messages
 * wait for an answer) goes through it: on the filesystem an append to an open log costs a fraction
 * of creating and deleting a file per message, which ext4 makes slow under bursts.
 *
 * Logs are segments of `ttl / 24` each (`journal:<name>:<segment number>`); a segment older than
 * the TTL holds only expired values and is deleted. One process per store: another process's
 * changes are seen only after a restart.
 *
 * Damage is never silent: a segment that cannot be read, or holds records that do not parse (a
 * torn last record included: a crash or a full disk cut an append short), is reported through
 * `onDamage`, moved aside (`journal-damaged:<name>:<segment>:<found at>`) and replaced by the
 * records that could be read, and the journal goes on (see `journal-damage.ts`).
 */
import type { Store } from '../store/store.ts';
import { describeJournalDamage, pendingRepairs, readSegment, repairSegment, segmentKey, segmentNumbers, type JournalDamage } from './journal-damage.ts';

export { describeJournalDamage, type JournalDamage } from './journal-damage.ts';

/** Options of {@link createJournal}. */
export interface JournalOptions<T = unknown> {
  /** Names the logs (`journal:<name>:…`): letters, digits and `-`. */
  name: string;
  /** How long a value lives after it was set, in seconds. */
  ttlSeconds: number;
  /** Clock in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
  /**
   * Told once per damaged segment found while the logs are read back, after it was set aside and
   * repaired (see {@link JournalDamage}). Default: the report is written to stderr. Log it loudly:
   * records may be lost.
   */
  onDamage?: (report: JournalDamage) => void;
  /**
   * The value to keep for a damaged record whose key can still be read (its value cannot). Without
   * it such a record is lost, and the key keeps the value it had before. Dedupe passes `() => 1`:
   * a key it saw, even half-written, stays seen.
   */
  salvage?: (key: string) => T;
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
export function createJournal<T>(store: Store, options: JournalOptions<T>): Journal<T> {
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
    return segmentNumbers(await store.list(prefix), prefix);
  }

  async function load(): Promise<void> {
    const at = now();
    // A repair a crash cut short is finished first, so its records are read below.
    const repairs = await pendingRepairs(store, options.name, new Set(await segments()));
    for (const segment of new Set([...(await segments()), ...repairs.keys()].sort((a, b) => a - b))) {
      if (isExpired(segment, at)) {
        await dropExpired(segment, repairs.get(segment));
        continue;
      }
      // Records a repair kept, when it could not be put in the segment's place, come before the segment's own.
      for (const repair of repairs.get(segment) ?? []) {
        for (const line of await store.readLog(repair)) {
          const record = parse<T>(line);
          if (record) apply(record);
        }
      }
      await loadSegment(segment, at);
    }
    swept = Math.floor(at / segmentMs);
  }

  /** Reads one segment into memory; a damaged one is repaired and reported. */
  async function loadSegment(segment: number, at: number): Promise<void> {
    const reading = await readSegment(store, prefix + segment, parse<T>);
    if (reading.unreadable === undefined && reading.damagedRecords === 0) {
      for (const { record } of reading.lines) apply(record!);
      return;
    }
    // Records were written in the segment's span; a salvaged one without its time is put at its end.
    const writtenUntil = Math.min((segment + 1) * segmentMs, at + 1);
    const kept: JournalRecord<T>[] = [];
    let salvaged = 0;
    let keysUnknown = reading.unreadable !== undefined;
    for (const { record, partial } of reading.lines) {
      if (record) kept.push(record);
      else if (!partial) keysUnknown = true;
      else {
        salvaged++;
        const t = partial.t ?? writtenUntil - 1;
        if (partial.deletion) kept.push({ k: partial.k, t, x: 1 });
        else if (options.salvage) kept.push({ k: partial.k, t, v: options.salvage(partial.k) });
      }
    }
    for (const record of kept) apply(record);
    const foundAt = now();
    const repair = await repairSegment(store, { journal: options.name, segment }, kept.map((record) => JSON.stringify(record)), foundAt);
    report({
      journal: options.name,
      segment: segmentKey(options.name, segment),
      kind: reading.unreadable !== undefined ? 'unreadable' : reading.damagedRecords === 1 && reading.tornTail ? 'torn-tail' : 'damaged-records',
      damagedRecords: reading.damagedRecords,
      tornTail: reading.tornTail,
      keptRecords: kept.length,
      salvagedKeys: salvaged,
      keysUnknown,
      writtenFrom: segment * segmentMs,
      writtenUntil,
      ...(reading.unreadable !== undefined ? { error: reading.unreadable.code } : {}),
      foundAt,
      ...(repair.movedTo !== undefined ? { movedTo: repair.movedTo } : {}),
      ...(repair.error !== undefined ? { repairError: repair.error } : {}),
    });
  }

  function apply(record: JournalRecord<T>): void {
    values.delete(record.k);
    if ('v' in record) values.set(record.k, { t: record.t, v: record.v });
  }

  function report(damage: JournalDamage): void {
    try {
      if (options.onDamage) options.onDamage(damage);
      else process.stderr.write(`operator: ${describeJournalDamage(damage)}\n`);
    } catch {
      // A failing listener must not stop the journal from loading.
    }
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
    for (const segment of await segments()) if (isExpired(segment, at)) await dropExpired(segment);
  }

  /**
   * Deletes an expired segment's log. A store that cannot delete now (a read-only or full disk)
   * must not stop reads: the log is left for the next sweep, and nothing in it is live.
   */
  async function dropExpired(segment: number, repairs: string[] = []): Promise<void> {
    for (const key of [prefix + segment, ...repairs]) await store.deleteLog(key).catch(() => undefined);
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

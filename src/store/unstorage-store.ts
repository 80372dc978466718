/**
 * The {@link Store} over unstorage: the filesystem, memory or Redis, or any storage passed in.
 */
import { createStorage, type Driver, type Storage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import type { Store } from './store.ts';
import { assertValidKey, assertValidPrefix, listingBase } from './keys.ts';
import { KeyedMutex } from './keyed-mutex.ts';
import { readRecords } from './file-log.ts';
import { toStoreError, type StoreOperation } from './store-error.ts';
import { OpenLogs } from './open-logs.ts';
import { keyToPath, listFileKeys } from './fs-layout.ts';
import { fsSyncDriver } from './fs-sync-driver.ts';
import { appendKeyedRecord, deleteKeyedLog, moveKeyedLog, readKeyedRecords } from './keyed-log.ts';
import { createLazyRedisDriver } from './lazy-redis-driver.ts';

/** Which backend {@link createStore} uses, plus an injectable clock. */
export type StoreOptions = (
  | { driver: 'fs'; base: string }
  | { driver: 'memory' }
  | { driver: 'redis'; url: string; base?: string }
  /**
   * A storage built by the caller; `close()` leaves it open. Logs use one key per record.
   * `singleWriter`: nothing else writes to it while this store is in use (a Durable Object's own
   * storage), so each log's counter is read once and then kept in memory.
   */
  | { storage: Storage; singleWriter?: boolean }
) & {
  /** Clock for TTLs, in milliseconds since the epoch. Defaults to `Date.now`. */
  now?: () => number;
};

/**
 * How every value is stored: `v` is the value, `exp` the expiry in epoch milliseconds. Keeping
 * the expiry in the value makes TTLs work on drivers without native expiry (Redis also gets a
 * native TTL so expired keys do not pile up there).
 */
interface Envelope {
  v?: unknown;
  exp?: number;
}

/**
 * Creates a {@link Store}.
 *
 * - `fs`: one file per key under `base` (`a:b` -> `<base>/a/b`), read and written synchronously
 *   and replaced atomically (see `fs-sync-driver.ts`); logs are append-only files, the most
 *   recently appended of which stay open until `close()` (see `open-logs.ts`).
 * - `memory`: process memory, for tests and one-off runs.
 * - `redis`: a Redis server at `url`, keys optionally namespaced by `base`.
 *
 * Atomicity: `setIfAbsent`, `withLock` and appends are atomic within this process (per-key
 * in-process locks). None of these drivers makes them atomic across processes; a deployment with
 * several processes sharing one backend needs a backend with native conditional writes and locks.
 *
 * Failures of the storage (a full or read-only disk, Redis out of reach) are thrown as a
 * `StoreError` with the errno-style code (see `store-error.ts`); invalid keys, records and TTLs as
 * `TypeError` / `RangeError`.
 *
 * Listings return keys without reading their values, so a key whose value has expired but has
 * not been read since may still be listed; `get` of it returns `null`. Logs appear in listings in
 * a backend-specific form (one key per log on `fs`, one per record elsewhere).
 *
 * @example
 * const store = createStore({ driver: 'fs', base: '/home/me/.operator/state' });
 * await store.set('pairing:1234', { userId: '42' }, { ttlSeconds: 600 });
 */
export function createStore(options: StoreOptions): Store {
  const now = options.now ?? Date.now;
  if ('storage' in options) return new UnstorageStore(options.storage, { now, ownsStorage: false, singleWriter: options.singleWriter === true });
  switch (options.driver) {
    case 'fs': {
      const driver = fsSyncDriver({ base: options.base });
      return new UnstorageStore(createStorage({ driver }), { now, ownsStorage: true, fileBase: options.base, fileValues: driver });
    }
    case 'memory':
      return new UnstorageStore(createStorage({ driver: memoryDriver() }), { now, ownsStorage: true });
    case 'redis':
      return new UnstorageStore(createStorage({ driver: createLazyRedisDriver(options) }), { now, ownsStorage: true });
  }
}

class UnstorageStore implements Store {
  /** Serializes this process's writes per key (sets, deletes, appends, lazy expiry). */
  private readonly writes = new KeyedMutex();
  /** The locks of `withLock`, apart from `writes` so a locked section may write its own key. */
  private readonly locks = new KeyedMutex();
  private readonly now: () => number;
  private readonly ownsStorage: boolean;
  /** Set on the fs driver: logs are files there. */
  private readonly fileBase: string | undefined;
  /** The log files kept open for appending, on the fs driver. */
  private readonly openLogs = new OpenLogs();
  /** Logs' next sequence numbers, when this store is its storage's only writer. */
  private readonly counters: Map<string, number> | undefined;
  /**
   * The fs driver itself, whose calls are synchronous: values are read and written through it
   * directly. unstorage's wrapper adds a key normalization (three regular expressions), a mount
   * lookup and a promise to each call, about a third of what reading a missing key cost; the
   * keys here are checked already and the driver is the only mount.
   */
  private readonly fileValues: Driver | undefined;

  constructor(
    private readonly storage: Storage,
    options: { now: () => number; ownsStorage: boolean; fileBase?: string; fileValues?: Driver; singleWriter?: boolean },
  ) {
    this.now = options.now;
    this.ownsStorage = options.ownsStorage;
    this.fileBase = options.fileBase;
    this.fileValues = options.fileValues;
    this.counters = options.singleWriter ? new Map() : undefined;
  }

  async get<T = unknown>(key: string): Promise<T | null> {
    assertValidKey(key);
    if (this.fileValues) {
      // The file driver reads synchronously: a live value or none needs no promise of its own.
      const envelope = guardSync('get', key, () => this.readFileEnvelope(key));
      if (envelope === null) return null;
      if (!this.isExpired(envelope)) return (envelope.v ?? null) as T | null;
    }
    return guard('get', key, async () => {
      const envelope = await this.readEnvelope(key);
      if (envelope === null) return null;
      if (this.isExpired(envelope)) {
        await this.writes.run(key, async () => {
          // Re-check under the lock: a set may have replaced the expired value meanwhile.
          const current = await this.readEnvelope(key);
          if (current !== null && this.isExpired(current)) await this.remove(key);
        });
        return null;
      }
      return (envelope.v ?? null) as T | null;
    });
  }

  async set(key: string, value: unknown, options?: { ttlSeconds?: number }): Promise<void> {
    assertValidKey(key);
    const ttlSeconds = checkTtl(options?.ttlSeconds);
    if (this.fileValues) return this.fileWrite('set', key, () => this.writeFile(key, value, ttlSeconds));
    await guard('set', key, () => this.writes.run(key, () => this.write(key, value, ttlSeconds)));
  }

  async setIfAbsent(key: string, value: unknown, options?: { ttlSeconds?: number }): Promise<boolean> {
    assertValidKey(key);
    const ttlSeconds = checkTtl(options?.ttlSeconds);
    const isSet = (current: Envelope | null) => current !== null && !this.isExpired(current) && (current.v ?? null) !== null;
    if (this.fileValues) {
      return this.fileWrite('setIfAbsent', key, () => {
        if (isSet(this.readFileEnvelope(key))) return false;
        this.writeFile(key, value, ttlSeconds);
        return true;
      });
    }
    return guard('setIfAbsent', key, () =>
      this.writes.run(key, async () => {
        if (isSet(await this.readEnvelope(key))) return false;
        await this.write(key, value, ttlSeconds);
        return true;
      }),
    );
  }

  async delete(key: string): Promise<void> {
    assertValidKey(key);
    if (this.fileValues) return this.fileWrite('delete', key, () => this.fileValues!.removeItem!(key, {}));
    await guard('delete', key, () => this.writes.run(key, () => this.remove(key)));
  }

  async list(prefix: string): Promise<string[]> {
    assertValidPrefix(prefix);
    return guard('list', prefix, async () => {
      const keys =
        this.fileBase !== undefined
          ? await listFileKeys(this.fileBase, prefix)
          : (await this.storage.getKeys(listingBase(prefix))).filter((key) => key.startsWith(prefix));
      return keys.sort();
    });
  }

  async append(key: string, record: string): Promise<void> {
    assertValidKey(key);
    assertValidRecord(record);
    const fileBase = this.fileBase;
    if (fileBase !== undefined) return this.fileWrite('append', key, () => this.openLogs.append(keyToPath(fileBase, key), record));
    await guard('append', key, () => this.writes.run(key, () => appendKeyedRecord(this.storage, key, record, this.counters)));
  }

  /** Runs `change` of the logs at `keys`, their kept counters forgotten (read again on the next append). */
  private async forgetting(keys: string[], change: () => Promise<void>): Promise<void> {
    try {
      await change();
    } finally {
      for (const key of keys) this.counters?.delete(key);
    }
  }

  async readLog(key: string): Promise<string[]> {
    assertValidKey(key);
    return guard('readLog', key, () =>
      this.fileBase !== undefined ? readRecords(keyToPath(this.fileBase, key)) : readKeyedRecords(this.storage, key),
    );
  }

  async deleteLog(key: string): Promise<void> {
    assertValidKey(key);
    await guard('deleteLog', key, () =>
      this.writes.run(key, () =>
        this.fileBase !== undefined ? this.openLogs.remove(keyToPath(this.fileBase, key)) : this.forgetting([key], () => deleteKeyedLog(this.storage, key)),
      ),
    );
  }

  async moveLog(from: string, to: string): Promise<void> {
    assertValidKey(from);
    assertValidKey(to);
    if (from === to) return;
    // Both keys' writes wait, taken in a fixed order so two moves cannot wait for each other.
    const [first, second] = from < to ? [from, to] : [to, from];
    await guard('moveLog', from, () =>
      this.writes.run(first, () =>
        this.writes.run(second, async () =>
          this.fileBase !== undefined
            ? this.openLogs.move(keyToPath(this.fileBase, from), keyToPath(this.fileBase, to))
            : this.forgetting([from, to], () => moveKeyedLog(this.storage, from, to)),
        ),
      ),
    );
  }

  async withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    assertValidKey(key);
    // Not guarded: what `fn` throws is the caller's own error.
    return this.locks.run(key, fn);
  }

  async close(): Promise<void> {
    this.openLogs.close();
    if (this.ownsStorage) await guard('close', undefined, () => this.storage.dispose());
  }

  /**
   * Runs `change`, a synchronous write of the file driver, as holding `key`'s write lock: at once
   * while nobody holds or awaits the key (nothing can come between its start and its end, and no
   * promise is made for it), after the key's holders otherwise.
   */
  private fileWrite<T>(operation: StoreOperation, key: string, change: () => T): T | Promise<T> {
    if (!this.writes.busy(key)) return guardSync(operation, key, change);
    return guard(operation, key, () => this.writes.run(key, async () => change()));
  }

  /** Writes a value through unstorage (the file driver's writes go through {@link fileWrite}). */
  private async write(key: string, value: unknown, ttlSeconds: number | undefined): Promise<void> {
    await this.storage.setItem(key, this.envelope(value, ttlSeconds), ttlSeconds === undefined ? {} : { ttl: Math.ceil(ttlSeconds) });
  }

  private envelope(value: unknown, ttlSeconds: number | undefined): Envelope {
    return ttlSeconds === undefined ? { v: value } : { v: value, exp: this.now() + ttlSeconds * 1000 };
  }

  /** Writes a value through the file driver, synchronously. */
  private writeFile(key: string, value: unknown, ttlSeconds: number | undefined): void {
    // The same text unstorage would write (JSON of the envelope); a value that cannot be JSON throws here.
    this.fileValues!.setItem!(key, JSON.stringify(this.envelope(value, ttlSeconds)), {});
  }

  private async remove(key: string): Promise<void> {
    if (this.fileValues) this.fileValues.removeItem!(key, {});
    else await this.storage.removeItem(key);
  }

  /** The stored envelope, or `null` when there is none or the value is not one of ours. */
  private async readEnvelope(key: string): Promise<Envelope | null> {
    return this.fileValues ? this.readFileEnvelope(key) : asEnvelope(await this.storage.getItem(key));
  }

  /** {@link readEnvelope} through the file driver, synchronously. */
  private readFileEnvelope(key: string): Envelope | null {
    return asEnvelope(parsedFile(this.fileValues!.getItem(key, {}) as string | null));
  }

  private isExpired(envelope: Envelope): boolean {
    return typeof envelope.exp === 'number' && this.now() >= envelope.exp;
  }
}

/** A value file's text parsed; text that is not JSON (a torn file) stays text, as unstorage reads it. */
function parsedFile(text: string | null): unknown {
  if (text === null) return null;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** A stored value as an envelope, or `null` when it is not one of ours. */
function asEnvelope(raw: unknown): Envelope | null {
  // Anything else (a torn file, a log, data written by other tools) is not a value of ours.
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || !('v' in raw || 'exp' in raw)) return null;
  return raw as Envelope;
}

/** {@link guard} for an operation that runs synchronously (the file driver's, while its key is free). */
function guardSync<T>(operation: StoreOperation, key: string, run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw toStoreError(error, operation, key);
  }
}

/** Runs one store operation, its storage failures thrown as a `StoreError` (see `store-error.ts`). */
async function guard<T>(operation: StoreOperation, key: string | undefined, run: () => Promise<T> | T): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw toStoreError(error, operation, key);
  }
}

function checkTtl(ttlSeconds: number | undefined): number | undefined {
  if (ttlSeconds === undefined) return undefined;
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) throw new RangeError(`ttlSeconds must be a positive number, got ${ttlSeconds}`);
  return ttlSeconds;
}

function assertValidRecord(record: string): void {
  if (typeof record !== 'string' || record.length === 0) throw new TypeError('A log record must be a non-empty string');
  if (record.includes('\n')) throw new TypeError('A log record must not contain "\\n" (records are single lines)');
}

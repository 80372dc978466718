/**
 * The one narrow storage interface. Every piece of state operator keeps (sessions, schedules,
 * delivery ledger, pairing, dedupe) goes through it, so the same code runs on the filesystem,
 * Redis or Cloudflare storage by changing the unstorage driver behind it.
 *
 * Keys are `/`-free segments joined by `:` (unstorage's convention), e.g. `sessions:abc`.
 *
 * Errors: an invalid key, record or TTL throws a `TypeError` or `RangeError`; a failure of the
 * storage itself (a full or read-only disk, Redis out of reach) throws a `StoreError` carrying the
 * errno-style code (see `store-error.ts`).
 */
export interface Store {
  /** The JSON value at `key`, or `null`. Expired values read as `null`. */
  get<T = unknown>(key: string): Promise<T | null>;
  /** Stores a JSON value, optionally expiring after `ttlSeconds`. */
  set(key: string, value: unknown, options?: { ttlSeconds?: number }): Promise<void>;
  /** Stores the value only if nothing (unexpired) is there; true when it stored. */
  setIfAbsent(key: string, value: unknown, options?: { ttlSeconds?: number }): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Keys that start with `prefix`. */
  list(prefix: string): Promise<string[]>;
  /**
   * Appends one record (a single line: no `\n`) to the append-only log at `key`. Costs the same
   * however long the log is; a crash mid-append damages at most that record.
   */
  append(key: string, record: string): Promise<void>;
  /** The records of the log at `key` in append order (possibly a torn last one), or `[]`. */
  readLog(key: string): Promise<string[]>;
  /** Deletes the log at `key`. */
  deleteLog(key: string): Promise<void>;
  /**
   * Moves the log at `from` to `to`, replacing any log there; nothing happens when there is no log
   * at `from`. Used to set a damaged log aside (kept for inspection, no longer read). Atomic on the
   * filesystem (a rename, which also moves a folder standing where the log should be); elsewhere
   * the records are copied, then the source deleted, so a crash in between leaves both, never
   * neither.
   */
  moveLog(from: string, to: string): Promise<void>;
  /**
   * Runs `fn` while holding an exclusive lock on `key` within this process (and across processes
   * where the backend supports it). Locks are re-entrant-free: do not nest the same key.
   */
  withLock<T>(key: string, fn: () => Promise<T>): Promise<T>;
  /** Releases backend resources. */
  close(): Promise<void>;
}

/**
 * A real {@link Store} that fails on demand, for tests of what store failures do: `fail('ENOSPC')`
 * makes every write throw the error Node's `fs` throws on a full disk, wrapped as the real store
 * wraps it (a `StoreError` with the code), until `heal()`. Reads of chosen keys can fail too
 * (`fail('EIO', { reads: true, keys: 'journal:inbox:' })`). Everything else goes to the store
 * inside, so what was written before the failure, and after it healed, is really there.
 *
 * @example
 * const store = new FaultyStore(createStore({ driver: 'memory' }));
 * store.fail('EROFS');
 * await expect(store.set('a', 1)).rejects.toMatchObject({ code: 'EROFS' });
 * store.heal();
 */
import { constants } from 'node:os';
import { toStoreError, type StoreOperation } from '../../src/store/store-error.ts';
import type { Store } from '../../src/store/store.ts';

/** Store operations that write. */
const writes: ReadonlySet<StoreOperation> = new Set(['set', 'setIfAbsent', 'delete', 'append', 'deleteLog', 'moveLog']);
/** Store operations that read (a listing is a read of a folder). */
const reads: ReadonlySet<StoreOperation> = new Set(['get', 'readLog', 'list']);

/** What `fail` makes fail. */
export interface FaultOptions {
  /** Whether writes fail (default true). */
  writes?: boolean;
  /** Whether reads fail (default false). */
  reads?: boolean;
  /** Only operations on keys starting with this (a listing: whose prefix starts with it). Default: every key. */
  keys?: string;
  /** Only these operations (overrides `writes` and `reads`). */
  operations?: StoreOperation[];
}

/** How Node describes each errno, as in `ENOSPC: no space left on device, write`. */
const descriptions: Record<string, string> = {
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EIO: 'i/o error',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EDQUOT: 'disk quota exceeded',
  EMFILE: 'too many open files',
  EISDIR: 'illegal operation on a directory',
};

/** The system call Node would name for each operation. */
const syscalls: Record<StoreOperation, string> = {
  get: 'open',
  set: 'open',
  setIfAbsent: 'open',
  delete: 'unlink',
  list: 'scandir',
  append: 'write',
  readLog: 'read',
  deleteLog: 'unlink',
  moveLog: 'rename',
  close: 'close',
};

/**
 * An error as `node:fs` throws it for `code` (`errno`, `code`, `syscall`, `path`, and the message
 * `ENOSPC: no space left on device, write '<path>'`).
 */
export function fsError(code: string, syscall: string, path: string): NodeJS.ErrnoException {
  const errno = (constants.errno as Record<string, number | undefined>)[code];
  const error: NodeJS.ErrnoException = new Error(`${code}: ${descriptions[code] ?? 'unknown error'}, ${syscall} '${path}'`);
  Object.assign(error, { errno: errno === undefined ? undefined : -errno, code, syscall, path });
  return error;
}

/** A store that fails on demand; see the module comment. */
export class FaultyStore implements Store {
  readonly #inner: Store;
  readonly #base: string;
  #fault: { code: string; matches: (operation: StoreOperation, key: string) => boolean } | undefined;
  /** Operations that failed, in order, as `<operation> <key>`. */
  readonly failures: string[] = [];

  /** `base` only names the files in error messages (default `/var/lib/operator/state`). */
  constructor(inner: Store, options: { base?: string } = {}) {
    this.#inner = inner;
    this.#base = options.base ?? '/var/lib/operator/state';
  }

  /** From now on, the chosen operations fail with `code` (`EROFS`, `ENOSPC`, `EIO`, `EACCES`...). */
  fail(code: string, options: FaultOptions = {}): void {
    const chosen = new Set<StoreOperation>(options.operations ?? [...((options.writes ?? true) ? writes : []), ...(options.reads ? reads : [])]);
    const prefix = options.keys ?? '';
    this.#fault = { code, matches: (operation, key) => chosen.has(operation) && key.startsWith(prefix) };
  }

  /** Ends the failure: every operation works again. */
  heal(): void {
    this.#fault = undefined;
  }

  /** Whether operations fail now. */
  get failing(): boolean {
    return this.#fault !== undefined;
  }

  get<T = unknown>(key: string): Promise<T | null> {
    return this.#run('get', key, () => this.#inner.get<T>(key));
  }

  set(key: string, value: unknown, options?: { ttlSeconds?: number }): Promise<void> {
    return this.#run('set', key, () => this.#inner.set(key, value, options));
  }

  setIfAbsent(key: string, value: unknown, options?: { ttlSeconds?: number }): Promise<boolean> {
    return this.#run('setIfAbsent', key, () => this.#inner.setIfAbsent(key, value, options));
  }

  delete(key: string): Promise<void> {
    return this.#run('delete', key, () => this.#inner.delete(key));
  }

  list(prefix: string): Promise<string[]> {
    return this.#run('list', prefix, () => this.#inner.list(prefix));
  }

  append(key: string, record: string): Promise<void> {
    return this.#run('append', key, () => this.#inner.append(key, record));
  }

  readLog(key: string): Promise<string[]> {
    return this.#run('readLog', key, () => this.#inner.readLog(key));
  }

  deleteLog(key: string): Promise<void> {
    return this.#run('deleteLog', key, () => this.#inner.deleteLog(key));
  }

  async moveLog(from: string, to: string): Promise<void> {
    // A rename fails when either end is on the failing part.
    const fault = this.#fault;
    if (fault !== undefined && !fault.matches('moveLog', from) && fault.matches('moveLog', to)) throw this.#error('moveLog', to);
    return this.#run('moveLog', from, () => this.#inner.moveLog(from, to));
  }

  withLock<T>(key: string, fn: () => Promise<T>): Promise<T> {
    return this.#inner.withLock(key, fn);
  }

  close(): Promise<void> {
    return this.#inner.close();
  }

  async #run<T>(operation: StoreOperation, key: string, work: () => Promise<T>): Promise<T> {
    if (this.#fault?.matches(operation, key)) throw this.#error(operation, key);
    return work();
  }

  /** The error the real fs store would throw: Node's error, wrapped as a `StoreError`. */
  #error(operation: StoreOperation, key: string): unknown {
    this.failures.push(`${operation} ${key}`);
    return toStoreError(fsError(this.#fault!.code, syscalls[operation], `${this.#base}/${key.split(':').join('/')}`), operation, key);
  }
}

/**
 * Store failures, recognisable wherever they surface: every error of a store operation that is not
 * a caller's mistake (an invalid key, a bad TTL) is wrapped once, at the store's boundary, in a
 * {@link StoreError} carrying the errno-style code (`EROFS`, `ENOSPC`, `EIO`, `EACCES`, ...), the
 * operation and the key. Callers then tell "the disk is full" from "this turn went wrong" with
 * {@link isStoreFailure}, without knowing which backend is behind the store.
 */

/** What a store operation was doing when it failed. */
export type StoreOperation = 'get' | 'set' | 'setIfAbsent' | 'delete' | 'list' | 'append' | 'readLog' | 'deleteLog' | 'moveLog' | 'close';

/**
 * Codes of a store that cannot do its work right now (a full or read-only disk, a failing device,
 * lost permissions, no file descriptors left, Redis unreachable). A write may work again later:
 * the gateway parks work and probes (see `StoreHealth`).
 */
const failureCodes: ReadonlySet<string> = new Set([
  'EROFS',
  'ENOSPC',
  'EDQUOT',
  'EIO',
  'EACCES',
  'EPERM',
  'EBUSY',
  'EMFILE',
  'ENFILE',
  'ENOMEM',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTCONN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'EUNAVAILABLE',
]);

/**
 * Codes meaning the backend as a whole is out of reach (as opposed to one file or key that cannot
 * be read): a journal does not treat a log it could not read for these reasons as damaged.
 */
const unreachableCodes: ReadonlySet<string> = new Set(['EMFILE', 'ENFILE', 'ENOMEM', 'ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTCONN', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'EUNAVAILABLE']);

/**
 * A store operation failed for a reason of the storage itself. `code` is the errno-style code of
 * the underlying error (`ENOSPC`...), `EUNAVAILABLE` when a Redis client gave up without one, or
 * `EUNKNOWN`. The message names the operation, the key and the cause; credentials in a URL are
 * removed from it. The original error is `cause`.
 *
 * @example
 * try { await store.append(key, record); }
 * catch (error) { if (error instanceof StoreError && error.code === 'ENOSPC') reportDiskFull(); }
 */
export class StoreError extends Error {
  override readonly name = 'StoreError';
  /** The errno-style code (`EROFS`, `ENOSPC`, `EIO`, `EACCES`, `ECONNREFUSED`, `EUNAVAILABLE`, `EUNKNOWN`...). */
  readonly code: string;
  /** The store operation that failed. */
  readonly operation: StoreOperation;
  /** The key (or listing prefix) it failed on, if any. */
  readonly key: string | undefined;

  constructor(code: string, operation: StoreOperation, key: string | undefined, cause: unknown) {
    super(`store ${operation}${key === undefined ? '' : ` of ${JSON.stringify(key)}`} failed: ${code}${describeCause(cause, code)}`, { cause });
    this.code = code;
    this.operation = operation;
    this.key = key;
  }
}

/**
 * `error` as the {@link StoreError} of `operation` on `key`; an error that already is one, and a
 * caller's mistake (`TypeError`, `RangeError`: an invalid key, record or TTL), is returned as is.
 */
export function toStoreError(error: unknown, operation: StoreOperation, key?: string): unknown {
  if (error instanceof StoreError || error instanceof TypeError || error instanceof RangeError) return error;
  return new StoreError(errorCode(error) ?? fallbackCode(error), operation, key, error);
}

/**
 * True when `error`, or an error it was caused by, says the store cannot do its work right now
 * (see the codes above): a full, read-only or failing disk, lost permissions, Redis out of reach.
 * Such a failure is not the fault of the work that hit it, which should wait and be tried again.
 */
export function isStoreFailure(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && failureCodes.has(code);
}

/** True when `error` says the whole backend is out of reach (Redis down, no descriptors left), not one log. */
export function isStoreUnreachable(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && unreachableCodes.has(code);
}

/** The errno-style code of `error` or of the first error in its `cause` chain that has one. */
export function errorCode(error: unknown): string | undefined {
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z0-9_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** ioredis gives up on a command after its retries without an errno code: the server is out of reach. */
function fallbackCode(error: unknown): string {
  const name = (error as { name?: unknown } | null)?.name;
  const message = String((error as { message?: unknown } | null)?.message ?? '');
  if (name === 'MaxRetriesPerRequestError' || /connection is closed|stream isn't writeable/i.test(message)) return 'EUNAVAILABLE';
  return 'EUNKNOWN';
}

/** ` (<cause message>)`, without credentials, or nothing when the message is just the code. */
function describeCause(cause: unknown, code: string): string {
  const message = cause instanceof Error ? cause.message : typeof cause === 'string' ? cause : '';
  const clean = scrub(message).trim();
  return clean === '' || clean === code ? '' : ` (${clean})`;
}

/** Removes what could be a credential: the user and password of a URL, a `password=` parameter. */
export function scrub(text: string): string {
  return text.replace(/\/\/[^/@\s]*@/g, '//***@').replace(/(password|passwd|pwd|token|secret)=([^&\s]+)/gi, '$1=***');
}

/**
 * Whether an error means the store could not do its work (a full disk, a read-only or failing
 * filesystem, Redis gone), as opposed to a fault of the turn itself. A turn that fails so is not
 * told as failed: its messages wait and are answered once the store works again.
 */

/** Error codes of a filesystem or connection that cannot take a write. */
const storeCodes = new Set(['EROFS', 'ENOSPC', 'EDQUOT', 'EIO', 'EACCES', 'EPERM', 'EMFILE', 'ENFILE', 'ECONNREFUSED', 'ECONNRESET']);

/** True when `error`, or an error it was caused by, is a store failure. */
export function isStoreFailure(error: unknown): boolean {
  for (let current = error, depth = 0; current !== undefined && current !== null && depth < 8; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && storeCodes.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

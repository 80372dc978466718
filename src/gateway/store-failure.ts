/**
 * Whether an error means the store could not do its work (a full disk, a read-only or failing
 * filesystem, Redis gone), as opposed to a fault of the turn itself. A turn that fails so is not
 * told as failed: its messages wait and are answered once the store works again.
 */
export { isStoreFailure } from '../store/store-error.ts';

/**
 * Reading an {@link OutboundFile} at send time, shared by the adapters. The size is checked on
 * the open file before its bytes are read, so a file over the platform's limit is refused without
 * loading it; either failure is final (sending again cannot help).
 */
import { open } from 'node:fs/promises';
import { DeliveryError, type OutboundFile } from './types.ts';

/** The platform's name for error messages (`Telegram`, `web chat`) and its largest file in bytes. */
export interface OutboundFileLimit {
  platform: string;
  maxBytes: number;
}

const count = (bytes: number) => bytes.toLocaleString('en-US');

/**
 * The file's bytes. Throws a non-retryable {@link DeliveryError} naming the file when it cannot
 * be read, or when it is larger than `limit.maxBytes`.
 *
 * @example
 * const bytes = await readOutboundFile(file, { platform: 'Telegram', maxBytes: capabilities.maxFileBytes });
 */
export async function readOutboundFile(file: OutboundFile, limit: OutboundFileLimit): Promise<Uint8Array> {
  let handle;
  try {
    handle = await open(file.path, 'r');
  } catch (error) {
    throw unreadable(file, limit, error);
  }
  try {
    // The size on disk, not the declared one: the file is what gets uploaded. Checked again after
    // reading, in case it grew in between.
    const { size } = await handle.stat();
    if (size > limit.maxBytes) throw tooLarge(file, limit, size);
    const bytes = await handle.readFile();
    if (bytes.byteLength > limit.maxBytes) throw tooLarge(file, limit, bytes.byteLength);
    return new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (error) {
    throw error instanceof DeliveryError ? error : unreadable(file, limit, error);
  } finally {
    await handle.close().catch(() => undefined);
  }
}

function tooLarge(file: OutboundFile, limit: OutboundFileLimit, size: number): DeliveryError {
  return new DeliveryError(`${limit.platform}: file ${file.name} is ${count(size)} bytes, over the limit of ${count(limit.maxBytes)} bytes`, { retryable: false });
}

function unreadable(file: OutboundFile, limit: OutboundFileLimit, error: unknown): DeliveryError {
  const reason = error instanceof Error ? error.message : String(error);
  return new DeliveryError(`${limit.platform}: file ${file.name} could not be read: ${reason}`, { retryable: false, cause: error });
}

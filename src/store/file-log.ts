/**
 * Append-only logs on the filesystem. Each log is the very file a value of the same key would use
 * (`a:b:c` -> `<base>/a/b/c`, see `fs-layout.ts`), so it stays readable with `getItemRaw`. Logs are
 * written through `OpenLogs` (`open-logs.ts`), which keeps recently used log files open: an
 * append is then one `write` on a file opened with `O_APPEND` (plus one `fstat`, see there). It
 * costs the same at record 10 and at record 10,000, and a crash can tear only the record being
 * written. This file holds what opening, reading and removing a log takes.
 */
import { openSync, promises as fsp, readFileSync, readSync, renameSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { privateFileMode } from '../core/private-modes.ts';
import { makeFolder } from './fs-layout.ts';

/**
 * Opens the log file at `path` for appending (`a+`: `O_APPEND`, and readable for
 * {@link endsWithoutNewline}), creating it (0600: a log holds a conversation) and its folders
 * (0700) as needed. Returns the descriptor.
 *
 * Synchronous on purpose: `fs.promises` costs several thread-pool round trips per call (about
 * 0.8 ms per append here), which would dominate a turn; these calls hold the event loop for
 * microseconds.
 */
export function openLog(path: string): number {
  try {
    return openSync(path, 'a+', privateFileMode);
  } catch (error) {
    if (!isNotFound(error)) throw error;
    makeFolder(dirname(path));
    return openSync(path, 'a+', privateFileMode);
  }
}

/**
 * True when the log open as `fd`, `size` bytes long, ends without a newline: a crash (or a failed
 * write) left a torn last record, and the next record must start on a fresh line so it is not
 * glued to it.
 */
export function endsWithoutNewline(fd: number, size: number): boolean {
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

/** The records of the log file at `path`, a torn last line included; `[]` when there is none. */
export async function readRecords(path: string): Promise<string[]> {
  let text: string | undefined;
  try {
    text = await readWhole(path);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
  if (text === undefined) return [];
  const records = text.split('\n');
  // Empty lines can only come from a repaired torn line (see OpenLogs.append) or the final newline;
  // they are not records.
  return records.includes('') ? records.filter((line) => line.length > 0) : records;
}

/**
 * The file as text (undefined when there is none), read with as few reads as its size allows:
 * `fsp.readFile` reads in 512 KiB chunks, which is measurably slower on multi-megabyte session logs.
 */
async function readWhole(path: string): Promise<string | undefined> {
  // A missing or small log (a new conversation, a short one) is read at once: through the thread
  // pool that costs more than the read. Large ones are read without holding the event loop. A
  // missing one is told without an exception (a new conversation's log: an error object and its
  // stack cost several times the stat).
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat === undefined) return undefined;
  if (stat.size <= syncReadLimit) return readFileSync(path, 'utf8');
  const handle = await fsp.open(path, 'r');
  try {
    // Stat again through the handle: the log may have grown since.
    const { size: length } = await handle.stat();
    const buffer = Buffer.allocUnsafe(length);
    let filled = 0;
    while (filled < length) {
      const { bytesRead } = await handle.read(buffer, filled, length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.toString('utf8', 0, filled);
  } finally {
    await handle.close();
  }
}

/** Logs up to this size are read synchronously (about a millisecond's read at most). */
const syncReadLimit = 256 * 1024;

/**
 * Removes the log file at `path`, if any. Through the store, use `OpenLogs.remove`, which
 * first closes the log if it is open.
 */
export async function removeLog(path: string): Promise<void> {
  await fsp.rm(path, { force: true });
}

/**
 * Renames the log file at `from` to `to`, creating `to`'s folders, replacing a file at `to`. A
 * folder standing where the log should be is moved the same way. A missing `from` is no error.
 * Through the store, use `OpenLogs.move`, which first closes both logs if they are open.
 */
export function moveLogFile(from: string, to: string): void {
  try {
    renameSync(from, to);
    return;
  } catch (error) {
    if (!isNotFound(error)) throw error;
  }
  // Either there is nothing to move, or `to`'s folder does not exist yet.
  try {
    statSync(from);
  } catch (error) {
    if (isNotFound(error)) return;
    throw error;
  }
  makeFolder(dirname(to));
  renameSync(from, to);
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

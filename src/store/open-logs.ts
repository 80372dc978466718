/**
 * Keeps recently used append-only log files open, so that appending to a log costs one `write`
 * (and one `fstat`) instead of open, stat, read, write and close: the `open` alone was about a
 * tenth of the gateway's CPU, at several appends per chat turn.
 */
import { closeSync, fstatSync, ftruncateSync, readSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';
import { endsWithoutNewline, moveLogFile, openLog, removeLog } from './file-log.ts';

/** Writes bytes of `buffer` to `fd` and returns how many; `fs.writeSync` by default. */
export type WriteFunction = (fd: number, buffer: Buffer, offset: number, length: number) => number;

/** Options of {@link OpenLogs}. */
export interface OpenLogsOptions {
  /**
   * How many logs stay open at most; the least recently appended is closed first. Default 256:
   * enough for the sessions and journals of a busy gateway, far below usual descriptor limits.
   */
  capacity?: number;
  /** Replaces `fs.writeSync`, for tests of failing writes. */
  write?: WriteFunction;
}

/** One open log: its descriptor, and its size after our last write to it (`-1`: not known). */
interface OpenLog {
  fd: number;
  size: number;
}

/**
 * A bounded, least-recently-used cache of open log files, keyed by absolute path. Records are
 * appended with plain synchronous writes on files opened with `O_APPEND`, never buffered, so:
 * a read by path right after an append sees the record; other processes appending to the same
 * file do not overwrite each other; a crash can tear only the record being written.
 *
 * A log whose last line was torn (a crash, a failed write) gets its next record on a fresh line.
 * A failed append closes the file, so the next one reopens it and looks for a torn line again.
 *
 * Synchronous on purpose, like the rest of the fs store: each call holds the event loop for
 * microseconds, less than one `fs.promises` round trip through the thread pool.
 *
 * @example
 * const logs = new OpenLogs({ capacity: 64 });
 * logs.append('/var/lib/operator/sessions/s1', '{"type":"message"}');
 * logs.close();
 */
export class OpenLogs {
  /** Open logs by absolute path; a Map iterates in insertion order, so the first is the oldest. */
  private readonly logs = new Map<string, OpenLog>();
  private readonly capacity: number;
  private readonly write: WriteFunction;

  constructor(options: OpenLogsOptions = {}) {
    const capacity = options.capacity ?? 256;
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`capacity must be a positive integer, got ${capacity}`);
    this.capacity = capacity;
    this.write = options.write ?? ((fd, buffer, offset, length) => writeSync(fd, buffer, offset, length));
  }

  /** How many log files are open now. */
  get size(): number {
    return this.logs.size;
  }

  /**
   * Appends `record` and a newline to the log file at `path`, opening it (and creating it and its
   * folders) if it is not open. `record` must not contain a newline; the caller checks. Throws
   * what the file system throws, after closing the file.
   */
  append(path: string, record: string): void {
    const key = resolve(path);
    const { log, size } = this.take(key);
    try {
      // Look for a torn last line when the file is not as we left it: just opened, or written by
      // someone else since (another process, a crash-recovery tool). Otherwise our own last write
      // ended with a newline, and the read is skipped.
      const torn = size !== log.size && endsWithoutNewline(log.fd, size);
      const data = Buffer.from(torn ? `\n${record}\n` : `${record}\n`, 'utf8');
      let offset = 0;
      try {
        while (offset < data.length) offset += this.write(log.fd, data, offset, data.length - offset);
      } catch (error) {
        // A full disk takes part of a record, then refuses the rest: cut the part off again, so
        // the log does not keep a torn record that a later append would leave in its middle.
        cutOwnTail(log.fd, size, data);
        throw error;
      }
      log.size = size + data.length;
    } catch (error) {
      // The file may still end in part of this record (the cut failed); forget it so the next
      // append reopens it and starts on a fresh line.
      closeQuietly(log.fd);
      throw error;
    }
    this.keep(key, log);
  }

  /** Closes the log file at `path` if it is open, then removes it, if any. */
  async remove(path: string): Promise<void> {
    this.forget(resolve(path));
    await removeLog(path);
  }

  /**
   * Moves the log file at `from` to `to` (closing both if open), replacing a file at `to`; a
   * missing `from` is no error. See {@link moveLogFile}.
   */
  move(from: string, to: string): void {
    this.forget(resolve(from));
    this.forget(resolve(to));
    moveLogFile(from, to);
  }

  /** Closes every open log file. The cache stays usable: later appends open files again. */
  close(): void {
    for (const log of this.logs.values()) closeQuietly(log.fd);
    this.logs.clear();
  }

  /**
   * The open log at `path`, taken out of the cache (the caller puts it back as the newest), with
   * the file's current size. Reopens the file when the cached descriptor points to a file that
   * was deleted or replaced behind our back (`deleteLog` from another store, `rm`, a value
   * renamed over it): appending to it would write into a file nobody can read. That check is
   * one `fstat`, far cheaper than the `open` it saves.
   */
  private take(path: string): { log: OpenLog; size: number } {
    const cached = this.logs.get(path);
    if (cached !== undefined) {
      this.logs.delete(path);
      try {
        const { nlink, size } = fstatSync(cached.fd);
        if (nlink > 0) return { log: cached, size };
      } catch {
        // A descriptor we cannot stat is no use either: reopen by path.
      }
      closeQuietly(cached.fd);
    }
    const fd = openLog(path);
    try {
      return { log: { fd, size: -1 }, size: fstatSync(fd).size };
    } catch (error) {
      closeQuietly(fd);
      throw error;
    }
  }

  /** Puts `log` back as the most recently used, closing the least recently used beyond capacity. */
  private keep(path: string, log: OpenLog): void {
    if (this.logs.size >= this.capacity) {
      const [oldest] = this.logs.keys();
      if (oldest !== undefined) this.forget(oldest);
    }
    this.logs.set(path, log);
  }

  private forget(path: string): void {
    const log = this.logs.get(path);
    if (log === undefined) return;
    this.logs.delete(path);
    closeQuietly(log.fd);
  }
}

/**
 * Cuts the file open as `fd` back to `size` bytes when what follows is the start of `data` (part of
 * our failed write, not another process's record). A cut that fails leaves the torn record, which
 * readers skip and the next append starts a fresh line after.
 */
function cutOwnTail(fd: number, size: number, data: Buffer): void {
  try {
    const grown = fstatSync(fd).size - size;
    if (grown <= 0 || grown > data.length) return;
    const tail = Buffer.alloc(grown);
    if (readSync(fd, tail, 0, grown, size) === grown && tail.equals(data.subarray(0, grown))) ftruncateSync(fd, size);
  } catch {
    // The write's own error is what the caller needs to hear.
  }
}

/** Closes `fd`; a failing close (the descriptor is gone already) leaves nothing to clean up. */
function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // Nothing else to release.
  }
}

/**
 * Reading a resource file as text. A person's file may be anything: malformed UTF-8 becomes
 * replacement characters (U+FFFD), a huge file is cut at a cap, and a file that cannot be read
 * becomes a {@link ResourceProblem}. Nothing here throws for a bad file.
 */
import { closeSync, fstatSync, openSync, readSync, statSync } from 'node:fs';
import type { ResourceProblem } from './types.ts';

/** A file read as text. */
export interface TextFile {
  /** The decoded text (a leading byte-order mark removed), cut at `maxBytes` when `truncated`. */
  text: string;
  /** The file was bigger than `maxBytes`. */
  truncated: boolean;
  /** The file's size in bytes (the whole file, also when truncated). */
  bytes: number;
}

/** A file that could not be read. */
export interface TextFileProblem {
  problem: ResourceProblem;
  /** The file (or a folder on its path) does not exist: callers for whom files are optional skip it. */
  missing?: true;
}

/** Options of {@link readTextFile}. */
export interface ReadTextOptions {
  /** Bytes read at most; the text of a bigger file is cut there, on a character boundary. */
  maxBytes: number;
}

const decoder = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

/**
 * Reads `path` as UTF-8 text, at most `maxBytes` of it. Returns the text, or a problem naming the
 * file when it cannot be read (missing, a directory, no permission, ...).
 *
 * @example
 * const read = readTextFile('/home/me/.operator/rules.md', { maxBytes: 64 * 1024 });
 * if ('problem' in read) problems.push(read.problem);
 * else use(read.text);
 */
export function readTextFile(path: string, options: ReadTextOptions): TextFile | TextFileProblem {
  let descriptor: number | undefined;
  try {
    // Checked before opening: opening a FIFO would block until something writes to it.
    const kind = statSync(path);
    if (kind.isDirectory()) return { problem: { file: path, message: 'is a directory, not a file' } };
    if (!kind.isFile()) return { problem: { file: path, message: 'is not a regular file' } };
    descriptor = openSync(path, 'r');
    const info = fstatSync(descriptor);
    const limit = Math.max(0, options.maxBytes);
    const { buffer, length } = readUpTo(descriptor, limit + 1, info.size);
    const truncated = length > limit;
    const end = truncated ? characterBoundary(buffer, limit) : length;
    return {
      text: decoder.decode(buffer.subarray(0, end)),
      truncated,
      bytes: Math.max(info.size, length),
    };
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    const problem = { file: path, message: readErrorMessage(error) };
    return code === 'ENOENT' || code === 'ENOTDIR' ? { problem, missing: true } : { problem };
  } finally {
    if (descriptor !== undefined) closeSync(descriptor);
  }
}

/**
 * Reads at most `cap` bytes. One byte past the caller's limit tells a file of exactly the limit
 * from a bigger one; the buffer starts at the size fstat gave and grows, since some files (pipes,
 * /proc) report 0 and a file may grow while it is read.
 */
function readUpTo(descriptor: number, cap: number, sizeHint: number): { buffer: Buffer; length: number } {
  let buffer = Buffer.alloc(Math.min(cap, sizeHint > 0 ? sizeHint + 1 : 64 * 1024));
  let length = 0;
  for (;;) {
    if (length === buffer.length) {
      if (buffer.length >= cap) break;
      const grown = Buffer.alloc(Math.min(cap, buffer.length * 2));
      buffer.copy(grown, 0, 0, length);
      buffer = grown;
    }
    const read = readSync(descriptor, buffer, length, buffer.length - length, null);
    if (read === 0) break;
    length += read;
  }
  return { buffer, length };
}

/**
 * The largest offset `<= end` that does not split a UTF-8 sequence, so a cut file does not end in
 * a replacement character that was never in it.
 */
export function characterBoundary(bytes: Uint8Array, end: number): number {
  let start = end - 1;
  while (start >= 0 && end - start < 4 && ((bytes[start] ?? 0) & 0xc0) === 0x80) start--;
  if (start < 0) return end;
  const lead = bytes[start] ?? 0;
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : lead >= 0xc0 ? 2 : 1;
  return start + length > end ? start : end;
}

/** A plain reason for a failed read, for people fixing their files. */
export function readErrorMessage(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
      return 'file not found';
    case 'EISDIR':
      return 'is a directory, not a file';
    case 'ENOTDIR':
      return 'a parent folder is not a directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    default:
      return `cannot be read: ${error instanceof Error ? error.message : String(error)}`;
  }
}

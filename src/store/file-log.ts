/**
 * Append-only logs on the filesystem. Each log is the very file a value of the same key would use
 * (`a:b:c` -> `<base>/a/b/c`, see `fs-layout.ts`), so it stays readable with `getItemRaw`. An
 * append is one `write` on a file opened with `O_APPEND`: it costs the same at record 10 and at
 * record 10,000, and a crash can tear only the record being written.
 */
import { closeSync, fstatSync, mkdirSync, openSync, promises as fsp, readFileSync, readSync, statSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Appends `record` and a newline to the log file at `path`, creating folders as needed.
 *
 * Synchronous on purpose: one small `O_APPEND` write takes about 10 µs, while the same append
 * through `fs.promises` costs several thread-pool round trips (about 0.8 ms here), which would
 * dominate a turn. The event loop is held for microseconds only.
 */
export async function appendRecord(path: string, record: string): Promise<void> {
  let fd: number;
  try {
    fd = openSync(path, 'a+');
  } catch (error) {
    if (!isNotFound(error)) throw error;
    mkdirSync(dirname(path), { recursive: true });
    fd = openSync(path, 'a+');
  }
  try {
    // A crash may have left a last line without its newline; start on a fresh line so this
    // record is not glued to the torn one.
    const torn = endsWithoutNewline(fd);
    const data = Buffer.from(torn ? `\n${record}\n` : `${record}\n`, 'utf8');
    let offset = 0;
    while (offset < data.length) offset += writeSync(fd, data, offset, data.length - offset);
  } finally {
    closeSync(fd);
  }
}

/** The records of the log file at `path`, a torn last line included; `[]` when there is none. */
export async function readRecords(path: string): Promise<string[]> {
  let text: string;
  try {
    text = await readWhole(path);
  } catch (error) {
    if (isNotFound(error)) return [];
    throw error;
  }
  const records = text.split('\n');
  // Empty lines can only come from a repaired torn line (see appendRecord) or the final newline;
  // they are not records.
  return records.includes('') ? records.filter((line) => line.length > 0) : records;
}

/**
 * The file as text, read with as few reads as its size allows: `fsp.readFile` reads in 512 KiB
 * chunks, which is measurably slower on multi-megabyte session logs.
 */
async function readWhole(path: string): Promise<string> {
  // A missing or small log (a new conversation, a short one) is read at once: through the thread
  // pool that costs more than the read. Large ones are read without holding the event loop.
  const { size } = statSync(path);
  if (size <= syncReadLimit) return readFileSync(path, 'utf8');
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

/** Removes the log file at `path`, if any. */
export async function removeLog(path: string): Promise<void> {
  await fsp.rm(path, { force: true });
}

function endsWithoutNewline(fd: number): boolean {
  const { size } = fstatSync(fd);
  if (size === 0) return false;
  const last = Buffer.alloc(1);
  readSync(fd, last, 0, 1, size - 1);
  return last[0] !== 0x0a;
}

function isNotFound(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
}

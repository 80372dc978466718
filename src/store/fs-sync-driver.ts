/**
 * An unstorage driver for the filesystem store: one small JSON file per key, in the layout of
 * `fs-layout.ts` (`a:b` -> `<base>/a/b`, as unstorage's `fs-lite` driver used, so existing state
 * folders keep working).
 *
 * Reads and writes are synchronous, on the event loop, on purpose. The values are a few hundred
 * bytes on a local disk: a synchronous read takes tens of microseconds and a write with its rename
 * somewhat more, while through `fs.promises` every open, write and close is a thread-pool round
 * trip, which took about a quarter of the gateway's CPU under load. Appends to the logs of
 * `file-log.ts` are synchronous for the same reason. Listing and clearing walk whole folders and
 * stay asynchronous.
 *
 * Writes are atomic against a crash: a new value is written in place (a process that dies
 * mid-write leaves a torn file, which reads as absent, as the key was before), and a value that
 * replaces another goes to a temp file in the key's folder, which is then renamed over the key's
 * file, so a reader or a process that dies at any point sees the old value or the new one, never
 * part of it. Another process reading a new key while it is being written may see it absent. There is no fsync per write: a power loss (or an OS
 * crash) may lose the last writes or leave a value empty, which reads as absent. That is the price
 * of not waiting for the disk on every write.
 *
 * Temp files are named `.tmp.<random>.<n>$`. The trailing `$` is what no store key may end with
 * and what unstorage hides from listings, so a temp file left by a crash is never listed and
 * never read as a value; it only takes a few bytes until the folder is cleared.
 */
import { randomBytes } from 'node:crypto';
import { promises as fsp, readFileSync, renameSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { defineDriver } from 'unstorage';
import { privateFileMode } from '../core/private-modes.ts';
import { keyToPath, listFileKeys, makeFolder } from './fs-layout.ts';

/** Options of {@link fsSyncDriver}. */
export interface FsSyncDriverOptions {
  /** The folder holding the values; created as values are written. */
  base: string;
}

/**
 * Start of this process's temp file names; random, so processes sharing a folder never pick the
 * same name. Made on first write, not at import: the Workers runtime refuses random numbers at a
 * module's top level, and the Worker imports the store (with this driver) for its own driver.
 */
let tempPrefix: string | undefined;
let tempCount = 0;

/**
 * Creates the driver. Items are UTF-8 text (`getItem`) or bytes (`getItemRaw`); a missing key, a
 * folder, or a key below a file reads as `null`. Removing a key leaves its folder, even if empty
 * (a concurrent write may be about to use it). `clear(base)` removes the folder of `base`, or
 * everything under the store folder but the folder itself. No watching and no native metadata.
 *
 * @example
 * const storage = createStorage({ driver: fsSyncDriver({ base: '/home/me/.operator/state' }) });
 */
export const fsSyncDriver = defineDriver((options: FsSyncDriverOptions) => {
  const root = resolve(options.base);
  const fileOf = (key: string): string => keyToPath(root, key);
  return {
    name: 'fs-sync',
    options,
    flags: { maxDepth: true },
    hasItem(key) {
      try {
        return statSync(fileOf(key)).isFile();
      } catch (error) {
        if (isAbsent(error)) return false;
        throw error;
      }
    },
    getItem(key) {
      return readOrNull(fileOf(key), 'utf8');
    },
    getItemRaw(key) {
      return readOrNull(fileOf(key));
    },
    setItem(key, value) {
      writeAtomic(fileOf(key), value);
    },
    setItemRaw(key, value: unknown) {
      if (typeof value !== 'string' && !(value instanceof Uint8Array)) throw new TypeError('fs-sync: raw values must be strings or bytes');
      writeAtomic(fileOf(key), value);
    },
    removeItem(key) {
      try {
        unlinkSync(fileOf(key));
      } catch (error) {
        if (!isAbsent(error)) throw error;
      }
    },
    getKeys(base, opts) {
      return listFileKeys(root, base ?? '', opts?.maxDepth);
    },
    async clear(base) {
      const folderKey = (base ?? '').replace(/:$/, '');
      if (folderKey !== '') {
        await fsp.rm(keyToPath(root, folderKey), { recursive: true, force: true });
        return;
      }
      const names = await fsp.readdir(root).catch((error: unknown) => {
        if (isAbsent(error)) return [];
        throw error;
      });
      await Promise.all(names.map((name) => fsp.rm(join(root, name), { recursive: true, force: true })));
    },
  };
});

/** The file's content, or `null` when there is no such file. */
function readOrNull(file: string): Buffer | null;
function readOrNull(file: string, encoding: 'utf8'): string | null;
function readOrNull(file: string, encoding?: 'utf8'): string | Buffer | null {
  try {
    // Most reads of a missing key are a new conversation's (its session index, its model choice):
    // a stat that says so without an exception costs a fifth of a read that throws ENOENT.
    if (statSync(file, { throwIfNoEntry: false }) === undefined) return null;
    return readFileSync(file, encoding);
  } catch (error) {
    if (isAbsent(error)) return null;
    throw error;
  }
}

/**
 * Writes `data` as the content of `file` (see the module comment). A new file is written in
 * place: there is no old value to keep, and a crash mid-write leaves a torn file that reads as
 * absent. Renaming over an existing file makes ext4 flush the new data at once (its
 * `auto_da_alloc` safeguard), which costs several times the write itself, so most writes (the
 * gateway's keys are nearly all new) avoid it. An existing file is replaced through a temp file.
 */
function writeAtomic(file: string, data: string | Uint8Array): void {
  try {
    writeNew(file, data);
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  tempPrefix ??= `.tmp.${randomBytes(4).toString('hex')}.`;
  const temp = join(dirname(file), `${tempPrefix}${(tempCount++).toString(36)}$`);
  try {
    writeNew(temp, data);
    renameSync(temp, file);
  } catch (error) {
    try {
      rmSync(temp, { force: true });
    } catch {
      // The write's own error says more than a failed clean-up.
    }
    throw error;
  }
}

/**
 * Writes a file that must not exist yet, private (0600) from its creation, creating its folder
 * (0700) on the first write there.
 */
function writeNew(file: string, data: string | Uint8Array): void {
  try {
    writeFileSync(file, data, { flag: 'wx', mode: privateFileMode });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    makeFolder(dirname(file));
    writeFileSync(file, data, { flag: 'wx', mode: privateFileMode });
  }
}

/** Errors meaning "no file there": missing, a folder, or a path through a file. */
function isAbsent(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR';
}

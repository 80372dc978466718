/**
 * How store keys lie on disk in the filesystem store: one file per key, `:` separating folders
 * (`a:b:c` -> `<base>/a/b/c`), the layout unstorage's fs drivers have always used, so existing
 * state folders stay readable. Values and logs share it.
 */
import { mkdirSync, promises as fsp, statSync, type Dirent } from 'node:fs';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { privateFolderMode } from '../core/private-modes.ts';

/**
 * The file of `key` under `base`. Throws on a key that could leave `base` or name something
 * other than one file below it (an empty, `.` or `..` segment, or a path separator or NUL inside
 * a segment); the store refuses such keys earlier, this guards direct callers.
 */
export function keyToPath(base: string, key: string): string {
  const segments = key.split(':');
  for (const segment of segments) {
    if (segment === '' || segment === '.' || segment === '..' || /[/\\\0]/.test(segment)) {
      throw new TypeError(`Invalid store key ${JSON.stringify(key)}: it does not name a file under the store folder`);
    }
  }
  // The segments hold no separator and no `.` or `..`, so joining them is all `join` would do.
  return `${basePrefix(base)}${segments.join(sep)}`;
}

/** Absolute bases' prefixes (see {@link basePrefix}), kept: every store operation names a file under one. */
const basePrefixes = new Map<string, string>();

/**
 * `resolve(base)` ending in one separator, remembered for an absolute base (its result does not
 * depend on the working folder).
 */
function basePrefix(base: string): string {
  let prefix = basePrefixes.get(base);
  if (prefix === undefined) {
    const resolved = resolve(base);
    prefix = resolved.endsWith(sep) ? resolved : resolved + sep;
    if (isAbsolute(base) && basePrefixes.size < 64) basePrefixes.set(base, prefix);
  }
  return prefix;
}

/**
 * True for file names that are never keys: those ending in `$`. No store key may end so (see
 * `keys.ts`), unstorage hides such keys from its own listings, and the fs driver names its temp
 * files so (see `fs-sync-driver.ts`).
 */
export function isHiddenName(name: string): boolean {
  return name.endsWith('$');
}

/**
 * Keys of the files under `base` whose key starts with `prefix`, read from the deepest folder
 * the prefix names rather than from the whole tree. `maxDepth` keeps keys with at most that many
 * `:`. Hidden names ({@link isHiddenName}) are left out.
 */
export async function listFileKeys(base: string, prefix: string, maxDepth?: number): Promise<string[]> {
  const cut = prefix.lastIndexOf(':');
  const folderKey = cut === -1 ? '' : prefix.slice(0, cut);
  const folder = folderKey === '' ? resolve(base) : keyToPath(base, folderKey);
  const keys: string[] = [];
  await collect(folder, folderKey, folderKey === '' ? 0 : folderKey.split(':').length, maxDepth, keys);
  return keys.filter((key) => key.startsWith(prefix));
}

/** Adds the keys below `folder` to `into`; `depth` is the number of `:` in its entries' keys. */
async function collect(folder: string, folderKey: string, depth: number, maxDepth: number | undefined, into: string[]): Promise<void> {
  if (maxDepth !== undefined && depth > maxDepth) return;
  let entries: Dirent[];
  try {
    entries = await fsp.readdir(folder, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return;
    throw error;
  }
  await Promise.all(
    entries.map(async (entry) => {
      const key = folderKey === '' ? entry.name : `${folderKey}:${entry.name}`;
      if (entry.isDirectory()) await collect(join(folder, entry.name), key, depth + 1, maxDepth, into);
      else if (entry.isFile() && !isHiddenName(entry.name)) into.push(key);
    }),
  );
}

/**
 * Creates `folder` and its missing parents, each private (0700: the store holds every
 * conversation, see `private-modes.ts`). Node's recursive `mkdir` reports `ENOENT` whatever
 * stopped it (a read-only disk, lost permissions); here the folders are then made one by one, so
 * the real cause (`EROFS`, `EACCES`...) is what is thrown, and a full disk or a read-only one is
 * recognised as such.
 */
export function makeFolder(folder: string): void {
  try {
    mkdirSync(folder, { recursive: true, mode: privateFolderMode });
    return;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const missing: string[] = [];
  for (let current = resolve(folder); !exists(current); current = dirname(current)) {
    missing.push(current);
    if (dirname(current) === current) break;
  }
  for (const path of missing.reverse()) {
    try {
      mkdirSync(path, privateFolderMode);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
}

function exists(path: string): boolean {
  try {
    statSync(path);
    return true;
  } catch {
    return false;
  }
}

// @ts-check
/** `list_dir`'s work: a folder's tree with sizes, a few levels deep, folders first. */
import { lstat, readdir, readlink, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** Listed but not descended into: their contents are noise. */
const unexpanded = new Set(['node_modules', '.git']);

/**
 * @param {{ path: string, depth: number, maxEntries: number }} request
 * @returns {Promise<{ kind: 'missing' | 'not-directory' } | { kind: 'listing', lines: string[], complete: boolean }>}
 */
export async function listOp(request) {
  const info = await stat(request.path).catch(() => undefined);
  if (info === undefined) return { kind: 'missing' };
  if (!info.isDirectory()) return { kind: 'not-directory' };
  /** @type {string[]} */
  const lines = [];
  const complete = await listInto(lines, request.path, 0, request.depth, request.maxEntries);
  return { kind: 'listing', lines, complete };
}

/**
 * Appends one folder's entries, recursing; false when the cap was hit.
 * @param {string[]} lines @param {string} directory @param {number} level @param {number} depth @param {number} maxEntries
 * @returns {Promise<boolean>}
 */
async function listInto(lines, directory, level, depth, maxEntries) {
  const entries = await readdir(directory, { withFileTypes: true });
  // Code-unit order, not localeCompare: the listing must not depend on the machine's locale.
  entries.sort((a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const indent = '  '.repeat(level);
  for (const entry of entries) {
    if (lines.length >= maxEntries) return false;
    const full = join(directory, entry.name);
    lines.push(indent + (await describe(entry, full)));
    if (entry.isDirectory() && level + 1 < depth && !unexpanded.has(entry.name)) {
      const complete = await listInto(lines, full, level + 1, depth, maxEntries).catch((error) => {
        // One unreadable folder should not hide the rest of the tree.
        lines.push(`${indent}  [cannot list: ${error.message}]`);
        return true;
      });
      if (!complete) return false;
    }
  }
  return true;
}

/** @param {import('node:fs').Dirent} entry @param {string} full */
async function describe(entry, full) {
  if (entry.isDirectory()) return `${entry.name}/`;
  if (entry.isSymbolicLink()) return `${entry.name} -> ${await readlink(full).catch(() => '?')}`;
  const size = await lstat(full).then((info) => info.size).catch(() => undefined);
  return size === undefined ? entry.name : `${entry.name} (${size} bytes)`;
}

/**
 * What under a folder other users of the machine could open: entries with any group or other
 * permission bit. Symlinks are listed by their own entry only (their mode means nothing on Linux)
 * and never followed.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/** `<path> <mode in octal>` for `root` and every entry below it that has a group or other bit. */
export function openEntries(root: string): string[] {
  const open: string[] = [];
  const visit = (path: string) => {
    const stats = lstatSync(path);
    if (stats.isSymbolicLink()) return;
    if ((stats.mode & 0o077) !== 0) open.push(`${path} ${(stats.mode & 0o7777).toString(8)}`);
    if (stats.isDirectory()) for (const name of readdirSync(path)) visit(join(path, name));
  };
  visit(root);
  return open;
}

/** How many entries (folders and files, symlinks included) lie below `root`, `root` not counted. */
export function countEntries(root: string): number {
  let count = 0;
  const visit = (path: string) => {
    for (const entry of readdirSync(path, { withFileTypes: true })) {
      count++;
      if (entry.isDirectory()) visit(join(path, entry.name));
    }
  };
  visit(root);
  return count;
}

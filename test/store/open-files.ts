/**
 * Counts this process's open file descriptors on files under a folder, from `/proc/self/fd`
 * (Linux only: see {@link canCountOpenFiles}), to check that log files are closed.
 */
import { existsSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import { sep } from 'node:path';

/** True where {@link openFilesUnder} works. */
export const canCountOpenFiles = existsSync('/proc/self/fd');

/** How many descriptors of this process are open on files under `folder` (deleted ones too). */
export function openFilesUnder(folder: string): number {
  const prefix = realpathSync(folder) + sep;
  let count = 0;
  for (const name of readdirSync('/proc/self/fd')) {
    try {
      if (readlinkSync(`/proc/self/fd/${name}`).startsWith(prefix)) count++;
    } catch {
      // The descriptor closed while we looked (the readdir's own one does).
    }
  }
  return count;
}

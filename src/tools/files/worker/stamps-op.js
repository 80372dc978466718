// @ts-check
/**
 * The `code` tool's look at a project's files for a language server that watches nothing itself
 * (gopls): every file below a folder whose extension or name is asked for, each with a stamp that
 * moves whenever the file is written (size, modification and change times in nanoseconds, inode),
 * so the gateway can tell the server which files were made, changed and removed since its last
 * look. Walked here, in the sandboxed worker, so the gateway opens none of the project's paths.
 */
import { lstatSync, readdirSync, statSync } from 'node:fs';
import { extname, sep } from 'node:path';

/**
 * @param {{ path: string, extensions: string[], names: string[], skippedPrefixes: string[], skippedFolders: string[], maxFiles: number, maxVisited: number }} request
 * @returns {{ files: [string, string, number][], listedAtMs: number, complete: boolean }}
 */
export function stampsOp(request) {
  const extensions = new Set(request.extensions);
  const names = new Set(request.names);
  const skippedFolders = new Set(request.skippedFolders);
  const skipped = (/** @type {string} */ name) => skippedFolders.has(name) || request.skippedPrefixes.some((prefix) => name.startsWith(prefix));
  // Taken before the walk: a file written during it is newer than this, so it counts as recent.
  const listedAtMs = Date.now();
  /** @type {[string, string, number][]} */
  const files = [];
  let visited = 0;
  /** @type {{ path: string, relative: string }[]} */
  const folders = [{ path: request.path, relative: '' }];
  while (folders.length > 0) {
    const folder = /** @type {{ path: string, relative: string }} */ (folders.pop());
    let entries;
    try {
      entries = readdirSync(folder.path, { withFileTypes: true });
    } catch (error) {
      // A root that cannot be read fails the call rather than looking like an empty project; a
      // folder below it that cannot be read holds nothing the server could read either.
      if (folder.relative === '') throw error;
      continue;
    }
    for (const entry of entries) {
      if (++visited > request.maxVisited) return { files, listedAtMs, complete: false };
      const path = folder.path.endsWith(sep) ? folder.path + entry.name : folder.path + sep + entry.name;
      const relative = folder.relative === '' ? entry.name : `${folder.relative}/${entry.name}`;
      // Linked folders are not walked, as `go list ./...` does not.
      if (entry.isDirectory()) {
        if (!skipped(entry.name)) folders.push({ path, relative });
        continue;
      }
      if (!extensions.has(extname(entry.name)) && !names.has(entry.name) && !names.has(relative)) continue;
      const stamp = stampOf(path, entry.isSymbolicLink());
      if (stamp === undefined) continue;
      if (files.length >= request.maxFiles) return { files, listedAtMs, complete: false };
      files.push([relative, stamp.stamp, stamp.mtimeMs]);
    }
  }
  return { files, listedAtMs, complete: true };
}

/**
 * A regular file's stamp (a link's target's), or undefined for anything else or a file gone since.
 * @param {string} path @param {boolean} link
 */
function stampOf(path, link) {
  try {
    const info = link ? statSync(path, { bigint: true }) : lstatSync(path, { bigint: true });
    if (!info.isFile()) return undefined;
    return { stamp: `${info.size}:${info.mtimeNs}:${info.ctimeNs}:${info.ino}`, mtimeMs: Number(info.mtimeNs / 1_000_000n) };
  } catch {
    return undefined;
  }
}

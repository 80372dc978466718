/**
 * Listing the files of a resource folder tree (knowledge documents, a skill's references, scripts
 * and assets). Hidden entries (`.git`, `.DS_Store`) are skipped; symbolic links to folders are
 * followed once, so a link back to a parent cannot loop.
 */
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ResourceProblem } from './types.ts';

/** Options of {@link listFiles}. */
export interface ListFilesOptions {
  /** Keeps a file when it returns true; gets the path relative to the root (`/`-separated). */
  include?: (relativePath: string) => boolean;
  /** Stop after this many files. Default 10,000. */
  maxFiles?: number;
}

/** The files found under a root. */
export interface FileList {
  /** Paths relative to the root, `/`-separated, sorted by code unit (independent of locale). */
  files: string[];
  /** More files than `maxFiles` were there. */
  truncated: boolean;
  problems: ResourceProblem[];
}

/** Lists the files under `root` recursively. A missing root is an empty list, not a problem. */
export function listFiles(root: string, options: ListFilesOptions = {}): FileList {
  const maxFiles = options.maxFiles ?? 10_000;
  const result: FileList = { files: [], truncated: false, problems: [] };
  const visited = new Set<string>();
  const walk = (directory: string, prefix: string): void => {
    let real: string;
    let entries;
    try {
      real = realpathSync(directory);
      entries = readdirSync(directory, { withFileTypes: true });
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (prefix !== '' || (code !== 'ENOENT' && code !== 'ENOTDIR')) {
        result.problems.push({ file: directory, message: `the folder cannot be read: ${(error as Error).message}` });
      }
      return;
    }
    if (visited.has(real)) return;
    visited.add(real);
    const names = entries.filter((entry) => !entry.name.startsWith('.')).sort((a, b) => compare(a.name, b.name));
    for (const entry of names) {
      if (result.truncated) return;
      const path = join(directory, entry.name);
      const relative = prefix + entry.name;
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        const target = statTarget(path);
        isDirectory = target?.isDirectory() ?? false;
        isFile = target?.isFile() ?? false;
      }
      if (isDirectory) walk(path, `${relative}/`);
      else if (isFile && (options.include?.(relative) ?? true)) {
        if (result.files.length >= maxFiles) result.truncated = true;
        else result.files.push(relative);
      }
    }
  };
  walk(root, '');
  // Depth-first order is not code-unit order (`a/b` vs `a-c`); sort once at the end.
  result.files.sort(compare);
  return result;
}

/** What a symbolic link points to; `undefined` when dangling, looping or unreadable. */
function statTarget(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

// @ts-check
/**
 * `glob` and `grep`'s work: walking a folder, matching names with picomatch and lines with a
 * regular expression. Both run here, in the sandboxed worker, so a pattern that backtracks for
 * ever blocks only this process, which the gateway kills when the call's time is up.
 */
import { open, opendir, stat } from 'node:fs/promises';
import { basename, isAbsolute, join, relative, resolve } from 'node:path';
import { looksBinary, sniffLength } from './file-kind.js';

/** Entries a walk visits at most; past it the result says it is incomplete. */
const maxVisited = 200_000;
/** Longest line `grep` shows; minified files would otherwise fill the result with one match. */
const maxLineChars = 1_000;
/** Most paths `glob` returns. */
const maxGlobResults = 10_000;

/**
 * Files below `root`, by path relative to it (`/`-separated), in no particular order.
 * @param {string} root @param {{ followLinks: boolean, skipFolder: (relativePath: string) => boolean }} options
 * @returns {AsyncGenerator<{ path: string, relative: string }, { complete: boolean }>}
 */
async function* walk(root, options) {
  let visited = 0;
  const seen = new Set();
  /** @type {{ path: string, relative: string }[]} */
  const folders = [{ path: root, relative: '' }];
  while (folders.length > 0) {
    const folder = /** @type {{ path: string, relative: string }} */ (folders.pop());
    if (options.followLinks) {
      // A link back up the tree would be walked for ever.
      const info = await stat(folder.path).catch(() => undefined);
      if (!info) continue;
      const identity = `${info.dev}:${info.ino}`;
      if (seen.has(identity)) continue;
      seen.add(identity);
    }
    let directory;
    try {
      directory = await opendir(folder.path);
    } catch {
      // An unreadable folder does not spoil the search of the others.
      continue;
    }
    for await (const entry of directory) {
      if (++visited > maxVisited) return { complete: false };
      const path = join(folder.path, entry.name);
      const relativePath = folder.relative === '' ? entry.name : `${folder.relative}/${entry.name}`;
      let isDirectory = entry.isDirectory();
      let isFile = entry.isFile();
      if (entry.isSymbolicLink()) {
        if (!options.followLinks) continue;
        const target = await stat(path).catch(() => undefined);
        isDirectory = target?.isDirectory() ?? false;
        isFile = target?.isFile() ?? false;
      }
      if (isDirectory) {
        if (!options.skipFolder(relativePath)) folders.push({ path, relative: relativePath });
      } else if (isFile) {
        yield { path, relative: relativePath };
      }
    }
  }
  return { complete: true };
}

/**
 * Drains a walk into an array, keeping whether it finished.
 * @template T @param {AsyncGenerator<T, { complete: boolean }>} generator @param {(item: T) => boolean} keep
 */
async function collect(generator, keep) {
  /** @type {T[]} */
  const items = [];
  for (;;) {
    const next = await generator.next();
    if (next.done) return { items, complete: next.value.complete };
    if (keep(next.value)) items.push(next.value);
  }
}

/**
 * Files matching `pattern` below `base`, newest first (absolute paths).
 * @param {{ base: string, pattern: string, ignore: string[] }} request @param {{ picomatch: any }} tools
 */
export async function globOp(request, tools) {
  const scan = tools.picomatch.scan(request.pattern);
  // A fixed start (`src/`, `../other/`, `/abs/`) is where the walk begins.
  const base = scan.base === '' ? request.base : isAbsolute(scan.base) ? scan.base : resolve(request.base, scan.base);
  const rest = scan.base === '' ? request.pattern : scan.glob;
  const info = await stat(base).catch(() => undefined);
  if (info === undefined) return { files: [], complete: true };
  if (!info.isDirectory()) return { files: rest === '' && info.isFile() ? [base] : [], complete: true };
  const matches = tools.picomatch(rest === '' ? '**' : rest, { dot: true });
  const ignored = tools.picomatch(request.ignore, { dot: true });
  const walked = await collect(
    walk(base, { followLinks: true, skipFolder: (folder) => ignored(`${folder}/x`) }),
    (file) => matches(file.relative) && !ignored(file.relative),
  );
  const times = new Map();
  for (const file of walked.items) times.set(file.path, (await stat(file.path).catch(() => undefined))?.mtimeMs ?? 0);
  const sorted = walked.items.map((file) => file.path).sort((a, b) => times.get(b) - times.get(a) || (a < b ? -1 : a > b ? 1 : 0));
  return { files: sorted.slice(0, maxGlobResults), complete: walked.complete && sorted.length <= maxGlobResults, total: sorted.length };
}

/**
 * Lines matching `pattern` in the files below `root` (or in `root` itself), as `path:line: text`
 * with paths relative to `cwd`.
 * @param {{ root: string, cwd: string, pattern: string, include?: string, maxResults: number, maxFileBytes: number, skipFolders: string[] }} request
 * @param {{ picomatch: any }} tools
 */
export async function grepOp(request, tools) {
  let regex;
  try {
    regex = new RegExp(request.pattern);
  } catch (error) {
    return { kind: 'invalid-pattern', message: /** @type {Error} */ (error).message };
  }
  const info = await stat(request.root).catch(() => undefined);
  if (info === undefined) return { kind: 'missing' };
  let files = [request.root];
  let complete = true;
  if (info.isDirectory()) {
    // Like ripgrep's --glob, a pattern without a slash matches file names at any depth.
    const include = request.include === undefined ? undefined : request.include.includes('/') ? request.include : `**/${request.include}`;
    const included = include === undefined ? () => true : tools.picomatch(include, { dot: true });
    const skipped = new Set(request.skipFolders);
    const walked = await collect(
      walk(request.root, { followLinks: false, skipFolder: (folder) => skipped.has(basename(folder)) }),
      (file) => included(file.relative),
    );
    files = walked.items.map((file) => file.path).sort();
    complete = walked.complete;
  }
  /** @type {string[]} */
  const matches = [];
  for (const file of files) {
    const text = await readText(file, request.maxFileBytes);
    if (text === undefined) continue;
    const display = relative(request.cwd, file) || basename(file);
    collectMatches(text, regex, display, matches, request.maxResults + 1);
    if (matches.length > request.maxResults) break;
  }
  return { kind: 'matches', matches: matches.slice(0, request.maxResults), more: matches.length > request.maxResults, complete };
}

/**
 * The file as text, or undefined when too large, binary or unreadable; one open, its size from
 * that open file (a search visits thousands).
 * @param {string} file @param {number} maxBytes
 */
async function readText(file, maxBytes) {
  let handle;
  try {
    handle = await open(file, 'r');
    const info = await handle.stat();
    if (!info.isFile() || info.size > maxBytes) return undefined;
    const bytes = await handle.readFile();
    if (looksBinary(bytes.subarray(0, sniffLength))) return undefined;
    return bytes.toString('utf8');
  } catch {
    return undefined;
  } finally {
    await handle?.close();
  }
}

/** @param {string} text @param {RegExp} regex @param {string} display @param {string[]} matches @param {number} limit */
function collectMatches(text, regex, display, matches, limit) {
  let lineNumber = 0;
  let start = 0;
  while (start < text.length && matches.length < limit) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    lineNumber++;
    let line = text.slice(start, end);
    if (line.endsWith('\r')) line = line.slice(0, -1);
    if (regex.test(line)) {
      const shown = line.length > maxLineChars ? `${line.slice(0, maxLineChars)} [... line truncated]` : line;
      matches.push(`${display}:${lineNumber}: ${shown}`);
    }
    if (end === text.length) break;
    start = end + 1;
  }
}

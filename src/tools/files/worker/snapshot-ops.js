// @ts-check
/**
 * What a command did to its workspace's files, for `/undo` and `/diff`, worked out inside the
 * sandbox: before the command the tree is walked (each file's size, times and inode, and the
 * bytes of every small one, kept here in the worker under the snapshot's id), after it the tree
 * is walked again (stats only; a file is read again only when its stats moved, or when they were
 * taken so soon after its last write that a change within one timestamp tick would not show).
 * The gateway's `workspace-snapshot.ts` says what is skipped and why; its limits arrive with the
 * request.
 */
import { Buffer, isUtf8 } from 'node:buffer';
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { resolve, sep } from 'node:path';

/**
 * @typedef {{ size: number, mtimeMs: number, ctimeMs: number, ino: number, content?: Buffer, unkept?: 'large' | 'unreadable' }} FileState
 * @typedef {{ roots: string[], skipped: Set<string>, limits: { maxFiles: number, maxKeptBytes: number, maxFileBytes: number }, skippedNames: Set<string>, markerFiles: Set<string>, privateNames: Set<string>, files: Map<string, FileState>, startedAt: number, untracked?: string }} Snapshot
 */

/** Within this long before the snapshot a later write can carry the same times. */
const racyWindowMs = 2_000;
/** Snapshots kept at once; the oldest goes first (a command that never came back). */
const maxSnapshots = 8;

/** @type {Map<string, Snapshot>} */
const snapshots = new Map();

/**
 * @param {{ snapshot: string, roots: string[], hidden: string[], limits: Snapshot['limits'], skippedNames: string[], markerFiles: string[], privateNames: string[] }} request
 */
export function snapshotTakeOp(request) {
  const roots = [...new Set(request.roots.map((root) => resolve(root)))];
  const hidden = request.hidden.map((folder) => resolve(folder));
  // A root that is a hidden folder opens nothing (as for the file tools).
  const open = roots.filter((root) => !hidden.includes(root));
  /** @type {Snapshot} */
  const snapshot = {
    roots: open,
    // Other roots met inside a root are walked as roots of their own, once.
    skipped: new Set([...hidden, ...open]),
    limits: request.limits,
    skippedNames: new Set(request.skippedNames),
    markerFiles: new Set(request.markerFiles),
    privateNames: new Set(request.privateNames),
    files: new Map(),
    startedAt: Date.now(),
  };
  let kept = 0;
  try {
    snapshot.untracked = walk(snapshot, (path) => {
      const state = readState(path, snapshot.limits.maxFileBytes);
      if (state === undefined) return undefined;
      kept += state.content?.length ?? 0;
      if (kept > snapshot.limits.maxKeptBytes) return `the workspace's files come to more than ${formatBytes(snapshot.limits.maxKeptBytes)} to keep`;
      snapshot.files.set(path, state);
      return undefined;
    });
  } catch (error) {
    snapshot.untracked = String(/** @type {Error} */ (error).message);
  }
  if (snapshot.untracked !== undefined) snapshot.files = new Map();
  snapshots.set(request.snapshot, snapshot);
  while (snapshots.size > maxSnapshots) snapshots.delete(/** @type {string} */ (snapshots.keys().next().value));
  return { untracked: snapshot.untracked };
}

/** @param {{ snapshot: string }} request */
export function snapshotDropOp(request) {
  snapshots.delete(request.snapshot);
  return {};
}

/**
 * Created, modified and deleted text files since the snapshot, and the changes that cannot be recorded.
 * @param {{ snapshot: string }} request
 */
export function snapshotCompareOp(request) {
  const snapshot = snapshots.get(request.snapshot);
  snapshots.delete(request.snapshot);
  if (snapshot === undefined) return { changes: [], unrecorded: [], untracked: 'the file worker was restarted during the command' };
  if (snapshot.untracked !== undefined) return { changes: [], unrecorded: [], untracked: snapshot.untracked };
  /** @type {Map<string, FileState>} */
  const now = new Map();
  const untracked = walk(snapshot, (path) => {
    const stats = fileStats(path);
    if (stats) now.set(path, stateOf(stats));
    return undefined;
  });
  if (untracked !== undefined) return { changes: [], unrecorded: [], untracked: `${untracked} after the command` };
  /** @type {{ changes: { path: string, before: string | null, after: string | null }[], unrecorded: { path: string, why: string }[] }} */
  const diff = { changes: [], unrecorded: [] };
  const racySince = snapshot.startedAt - racyWindowMs;
  const maxFileBytes = snapshot.limits.maxFileBytes;
  for (const [path, after] of now) {
    const before = snapshot.files.get(path);
    if (before === undefined) {
      const created = readState(path, maxFileBytes);
      if (created) addChange(diff, path, { content: null }, created);
      continue;
    }
    if (sameStats(before, after) && Math.max(before.mtimeMs, before.ctimeMs) < racySince) continue;
    if (before.content === undefined) {
      // Its bytes were not kept: a change can be named but not compared or taken back.
      if (!sameStats(before, after)) diff.unrecorded.push({ path, why: before.unkept ?? 'unreadable' });
      continue;
    }
    const current = readState(path, maxFileBytes);
    if (current?.content !== undefined && current.content.equals(before.content)) continue;
    addChange(diff, path, before, current ?? { content: null });
  }
  for (const [path, before] of snapshot.files) if (!now.has(path)) addChange(diff, path, before, { content: null });
  const byPath = (/** @type {{ path: string }} */ a, /** @type {{ path: string }} */ b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);
  diff.changes.sort(byPath);
  diff.unrecorded.sort(byPath);
  return diff;
}

/**
 * Calls `visit` with each regular file under the roots; a reason it returns, or too many files,
 * ends the walk with that reason.
 * @param {Snapshot} snapshot @param {(path: string) => string | undefined} visit
 */
function walk(snapshot, visit) {
  let files = 0;
  for (const root of snapshot.roots) {
    const folders = [root];
    while (folders.length > 0) {
      const folder = /** @type {string} */ (folders.pop());
      let entries;
      try {
        entries = readdirSync(folder, { withFileTypes: true });
      } catch {
        continue;
      }
      const skippedHere = skippedEntries(snapshot, entries, folder === root);
      if (skippedHere === 'all') continue;
      for (const entry of entries) {
        const path = folder.endsWith(sep) ? folder + entry.name : folder + sep + entry.name;
        if (entry.isDirectory()) {
          if (!snapshot.skippedNames.has(entry.name) && !skippedHere?.has(entry.name) && !snapshot.skipped.has(path)) folders.push(path);
        } else if (entry.isFile() && !skippedHere?.has(entry.name)) {
          if (++files > snapshot.limits.maxFiles) return `the workspace has more than ${snapshot.limits.maxFiles} files`;
          const reason = visit(path);
          if (reason !== undefined) return reason;
        }
      }
    }
  }
  return undefined;
}

/**
 * All of a folder when it holds a marker file (unless it is a root); the private entries when it
 * is an OPERATOR_HOME; else nothing beyond the skipped names.
 * @param {Snapshot} snapshot @param {import('node:fs').Dirent[]} entries @param {boolean} root
 * @returns {'all' | Set<string> | undefined}
 */
function skippedEntries(snapshot, entries, root) {
  let state = false;
  let homeFile = false;
  for (const entry of entries) {
    if (!root && snapshot.markerFiles.has(entry.name)) return 'all';
    if (entry.name === 'state' && entry.isDirectory()) state = true;
    else if (entry.name === 'profiles' || entry.name === 'operator.json' || entry.name === 'gateway.json' || entry.name === 'web-token') homeFile = true;
  }
  return state && homeFile ? snapshot.privateNames : undefined;
}

/**
 * A regular file's stats and, up to `maxBytes`, its bytes, from one open that follows no link
 * and does not block on a FIFO.
 * @param {string} path @param {number} maxBytes @returns {FileState | undefined}
 */
function readState(path, maxBytes) {
  let fd;
  try {
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    const stats = fileStats(path);
    return stats ? stateOf(stats, undefined, 'unreadable') : undefined;
  }
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile()) return undefined;
    if (stats.size > maxBytes) return stateOf(stats, undefined, 'large');
    const content = Buffer.allocUnsafe(stats.size);
    let read = 0;
    while (read < content.length) {
      const count = readSync(fd, content, read, content.length - read, read);
      if (count === 0) break;
      read += count;
    }
    return stateOf(stats, read === content.length ? content : content.subarray(0, read));
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** @param {string} path */
function fileStats(path) {
  try {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    return stats?.isFile() ? stats : undefined;
  } catch {
    return undefined;
  }
}

/**
 * @param {import('node:fs').Stats} stats @param {Buffer} [content] @param {FileState['unkept']} [unkept]
 * @returns {FileState}
 */
function stateOf(stats, content, unkept) {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino, content, unkept };
}

/** @param {FileState} a @param {FileState} b */
function sameStats(a, b) {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/**
 * @param {{ changes: { path: string, before: string | null, after: string | null }[], unrecorded: { path: string, why: string }[] }} diff
 * @param {string} path @param {{ content?: Buffer | null, unkept?: string }} before @param {{ content?: Buffer | null, unkept?: string }} after
 */
function addChange(diff, path, before, after) {
  const unkept = after.unkept ?? before.unkept;
  if (unkept) {
    diff.unrecorded.push({ path, why: unkept });
    return;
  }
  const beforeText = before.content ? asText(before.content) : null;
  const afterText = after.content ? asText(after.content) : null;
  if (beforeText === undefined || afterText === undefined) diff.unrecorded.push({ path, why: 'binary' });
  else if (beforeText !== afterText) diff.changes.push({ path, before: beforeText, after: afterText });
}

/** @param {Buffer} content */
function asText(content) {
  return isUtf8(content) && !content.includes(0) ? content.toString('utf8') : undefined;
}

/** @param {number} bytes */
function formatBytes(bytes) {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

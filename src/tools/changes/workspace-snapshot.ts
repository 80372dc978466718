/**
 * What a command did to the files of its workspace, for `/undo` and `/diff`: the tree is walked
 * before the command (each file's size, times and inode, and the bytes of every small one, since
 * those are what a change must be able to put back) and again after it (stats only; a file is
 * read again only when its stats moved, or when they were taken so soon after its last write
 * that a change within the same timestamp tick would not show). The `shell` tool records what
 * differs (see `shell.ts`).
 *
 * Bounded so that a command in a big tree stays cheap:
 * - folders that are not the work itself are not walked: {@link skippedFolderNames}, a folder
 *   holding a `CACHEDIR.TAG` (cargo's `target`, pytest and mypy caches, ...) or a `pyvenv.cfg` (a
 *   Python virtualenv), the private entries of an `OPERATOR_HOME` found inside (its store among
 *   them, which the change log itself writes to while a command runs), the workspace's hidden
 *   folders, symbolic links;
 * - past {@link SnapshotLimits.maxFiles} files, or {@link SnapshotLimits.maxKeptBytes} bytes of
 *   contents to keep, nothing is tracked (the note says so);
 * - a file over {@link SnapshotLimits.maxFileBytes} is compared by its stats only, and one that
 *   is not UTF-8 text is compared but not recorded: a recorded change carries the contents as
 *   text, and there is no way to record one without them (the file tools' "too large to keep"
 *   comes from contents in hand). Such a change is named in the note instead.
 *
 * The walk is synchronous (a thread-pool round trip per file would cost more than the file's
 * own read), in slices that give the event loop back every {@link yieldEvery} files.
 */
import { isUtf8 } from 'node:buffer';
import { closeSync, constants, fstatSync, lstatSync, openSync, readdirSync, readSync, type Dirent, type Stats } from 'node:fs';
import { resolve, sep } from 'node:path';
import { errorMessage } from '../../core/errors.ts';
import { privateEntries } from '../../core/private-paths.ts';
import { maxChanges } from './change-log.ts';
import { maxKeptChars, type ChangeRecorder, type ChangeReport } from './file-change.ts';
import { display } from './undo.ts';

/**
 * Folder names never walked, wherever they are: version control data (a commit is not an edit to
 * undo), installed dependencies, caches and build caches of common tools. A command that changes
 * files there (`npm install`, `git commit`) is not recorded there.
 */
export const skippedFolderNames: ReadonlySet<string> = new Set([
  '.git',
  '.hg',
  '.svn',
  'node_modules',
  'bower_components',
  '.venv',
  '__pycache__',
  '.cache',
  '.next',
  '.nuxt',
  '.turbo',
  '.parcel-cache',
  '.gradle',
  '.tox',
]);

/** Files whose presence marks their folder as not worth walking (a cache, a virtualenv). */
const markerFiles = new Set(['CACHEDIR.TAG', 'pyvenv.cfg']);

/** How much a snapshot may hold. */
export interface SnapshotLimits {
  /** Files in the whole workspace; past it nothing is tracked. */
  maxFiles: number;
  /** Bytes of contents kept before the command, all files together; past it nothing is tracked. */
  maxKeptBytes: number;
  /** A larger file's contents are not kept: its change is named, not recorded. */
  maxFileBytes: number;
}

/**
 * 5,000 files, 32 MiB kept, and the change log's own per-file maximum, counted in bytes (a file of
 * at most that many bytes has at most that many characters).
 */
export const defaultSnapshotLimits: SnapshotLimits = { maxFiles: 5_000, maxKeptBytes: 32 * 1024 * 1024, maxFileBytes: maxKeptChars };

/** What a snapshot covers. */
export interface WorkspaceSnapshotOptions {
  /** The folders to walk: the workspace's writable roots. A root inside another is walked once. */
  roots: readonly string[];
  /** Folders not walked (the workspace's hidden ones), unless a root lies inside one. */
  hidden?: readonly string[];
  limits?: Partial<SnapshotLimits>;
}

/** A file a change was seen to but not recorded, and why. */
export interface UnrecordedChange {
  path: string;
  /** Not UTF-8 text (or holding a NUL byte); over the per-file maximum; unreadable to operator. */
  why: 'binary' | 'large' | 'unreadable';
}

/** What differs between a snapshot and the tree now. */
export interface WorkspaceDiff {
  /** Created, modified and deleted text files, by path; without `tool`, which the caller names. */
  changes: Omit<ChangeReport, 'tool'>[];
  /** Changed files whose contents were not kept or cannot be recorded. */
  unrecorded: UnrecordedChange[];
  /** Why nothing was tracked, when nothing was. */
  untracked?: string;
}

/** What the walk keeps of one file. */
interface FileState {
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  /** The bytes, when kept (before the command) or read again (after). */
  content?: Buffer;
  /** Why the bytes are not there. */
  unkept?: 'large' | 'unreadable';
}

/**
 * Within this long before the snapshot, a write and a later one can carry the same times (the
 * kernel stamps files from a clock that ticks every few milliseconds; FAT keeps 2 s, HFS+ and
 * ext3 1 s): a file whose mtime or ctime (which moves with every write, and with `touch -d`,
 * which sets mtime back) falls in it is compared by content even when its stats did not move.
 */
const racyWindowMs = 2_000;

/** Files handled between two returns to the event loop. */
const yieldEvery = 500;

/** One-line notes name at most this many files. */
const namedInNote = 5;

/** A snapshot of a workspace's files, taken before a command (see the file's comment). */
export class WorkspaceSnapshot {
  readonly #roots: string[];
  readonly #skipped: Set<string>;
  readonly #limits: SnapshotLimits;
  #files = new Map<string, FileState>();
  /** Wall-clock time the walk began (see {@link racyWindowMs}). */
  #startedAt = 0;
  #untracked: string | undefined;

  private constructor(options: WorkspaceSnapshotOptions) {
    const roots = [...new Set(options.roots.map((root) => resolve(root)))];
    const hidden = (options.hidden ?? []).map((folder) => resolve(folder));
    // A root that is a hidden folder opens nothing (as for the file tools).
    this.#roots = roots.filter((root) => !hidden.includes(root));
    // Other roots met inside a root are walked as roots of their own, once.
    this.#skipped = new Set([...hidden, ...this.#roots]);
    this.#limits = { ...defaultSnapshotLimits, ...options.limits };
  }

  /** Walks `options.roots` now, keeping what a later {@link compare} needs. */
  static async take(options: WorkspaceSnapshotOptions): Promise<WorkspaceSnapshot> {
    const snapshot = new WorkspaceSnapshot(options);
    snapshot.#startedAt = Date.now();
    let kept = 0;
    const { maxFileBytes, maxKeptBytes } = snapshot.#limits;
    try {
      snapshot.#untracked = await snapshot.#walk((path) => {
        const state = readState(path, maxFileBytes);
        if (state === undefined) return undefined;
        kept += state.content?.length ?? 0;
        if (kept > maxKeptBytes) return `the workspace's files come to more than ${formatBytes(maxKeptBytes)} to keep`;
        snapshot.#files.set(path, state);
        return undefined;
      });
    } catch (error) {
      // Never in the way of the command itself.
      snapshot.#untracked = errorMessage(error);
    }
    // Nothing of it will be used: let the contents go now rather than after the command.
    if (snapshot.#untracked !== undefined) snapshot.#files = new Map();
    return snapshot;
  }

  /** The limits it was taken with. */
  get limits(): Readonly<SnapshotLimits> {
    return this.#limits;
  }

  /** Why nothing is tracked (the walk gave up), or undefined. */
  get untracked(): string | undefined {
    return this.#untracked;
  }

  /** Walks the roots again and says which files were created, modified and deleted since. */
  async compare(): Promise<WorkspaceDiff> {
    if (this.#untracked !== undefined) return { changes: [], unrecorded: [], untracked: this.#untracked };
    const now = new Map<string, FileState>();
    const untracked = await this.#walk((path) => {
      const stats = fileStats(path);
      if (stats) now.set(path, stateOf(stats));
      return undefined;
    });
    if (untracked !== undefined) return { changes: [], unrecorded: [], untracked: `${untracked} after the command` };

    const diff: WorkspaceDiff = { changes: [], unrecorded: [] };
    const racySince = this.#startedAt - racyWindowMs;
    for (const [path, after] of now) {
      const before = this.#files.get(path);
      if (before === undefined) {
        const created = readState(path, this.#limits.maxFileBytes);
        if (created) addChange(diff, path, { content: null }, created);
        continue;
      }
      if (sameStats(before, after) && Math.max(before.mtimeMs, before.ctimeMs) < racySince) continue;
      if (before.content === undefined) {
        // Its bytes were not kept: a change can be named but not compared or taken back.
        if (!sameStats(before, after)) diff.unrecorded.push({ path, why: before.unkept ?? 'unreadable' });
        continue;
      }
      const current = readState(path, this.#limits.maxFileBytes);
      if (current?.content !== undefined && current.content.equals(before.content)) continue;
      addChange(diff, path, before, current ?? { content: null });
    }
    for (const [path, before] of this.#files) {
      if (!now.has(path)) addChange(diff, path, before, { content: null });
    }
    diff.changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    diff.unrecorded.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
    return diff;
  }

  /**
   * Calls `visit` with each regular file under the roots (see the file's comment for what is
   * skipped); a reason `visit` returns, or too many files, ends the walk with that reason.
   */
  async #walk(visit: (path: string) => string | undefined): Promise<string | undefined> {
    let files = 0;
    for (const root of this.#roots) {
      const folders = [root];
      while (folders.length > 0) {
        const folder = folders.pop()!;
        let entries: Dirent[];
        try {
          entries = readdirSync(folder, { withFileTypes: true });
        } catch {
          // Gone, unreadable, not a folder: nothing there to track.
          continue;
        }
        const skippedHere = skippedEntries(entries, folder === root);
        if (skippedHere === 'all') continue;
        for (const entry of entries) {
          const path = folder.endsWith(sep) ? folder + entry.name : folder + sep + entry.name;
          if (entry.isDirectory()) {
            if (!skippedFolderNames.has(entry.name) && !skippedHere?.has(entry.name) && !this.#skipped.has(path)) folders.push(path);
          } else if (entry.isFile() && !skippedHere?.has(entry.name)) {
            if (++files > this.#limits.maxFiles) return `the workspace has more than ${this.#limits.maxFiles} files`;
            const reason = visit(path);
            if (reason !== undefined) return reason;
            if (files % yieldEvery === 0) await new Promise<void>((next) => setImmediate(next));
          }
        }
      }
    }
    return undefined;
  }
}

/**
 * Compares the workspace with `snapshot` and records each created, modified or deleted text file
 * into `recorder` as made by `tool`. Returns a note for the tool's result when something was
 * not recorded (paths shown relative to `cwd`), else undefined.
 */
export async function recordWorkspaceChanges(snapshot: WorkspaceSnapshot, recorder: ChangeRecorder, options: { tool: string; cwd: string }): Promise<string | undefined> {
  let diff: WorkspaceDiff;
  try {
    diff = await snapshot.compare();
  } catch (error) {
    // Tracking is a convenience: it never turns a command that ran into a failed call.
    return `(file changes not tracked: ${errorMessage(error)})`;
  }
  if (diff.untracked !== undefined) return `(file changes not tracked: ${diff.untracked})`;
  const notes: string[] = [];
  // The log keeps the newest `maxChanges`: recording more would push out part of this very
  // command's changes, and an undo of it would then put back only some of its files.
  if (diff.changes.length > maxChanges) notes.push(`(file changes not recorded: the command changed ${diff.changes.length} files, more than the ${maxChanges} changes /undo keeps)`);
  else for (const change of diff.changes) await recorder.record({ ...change, tool: options.tool });
  if (diff.unrecorded.length > 0) {
    const named = diff.unrecorded.slice(0, namedInNote).map(({ path, why }) => `${display(path, options.cwd)} (${whyWords(why, snapshot.limits.maxFileBytes)})`);
    const more = diff.unrecorded.length - named.length;
    notes.push(`(changed but not recorded for /undo: ${named.join(', ')}${more > 0 ? ` and ${more} more` : ''})`);
  }
  return notes.length > 0 ? notes.join('\n') : undefined;
}

/** One side of a change: a file's kept bytes or why they were not kept; null bytes: no file. */
type Side = { content?: Buffer | null; unkept?: FileState['unkept'] };

/** Adds the change of `path` from `before` to `after` as text, or as unrecorded. */
function addChange(diff: WorkspaceDiff, path: string, before: Side, after: Side): void {
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

/** The bytes as a string, when they are text the file tools would write back unchanged (UTF-8 without NUL). */
function asText(content: Buffer): string | undefined {
  return isUtf8(content) && !content.includes(0) ? content.toString('utf8') : undefined;
}

/**
 * A regular file's stats and, up to `maxBytes`, its bytes (from one open: no symbolic link is
 * followed, and a FIFO put in a file's place does not block). Undefined when it is gone or is
 * not a regular file.
 */
function readState(path: string, maxBytes: number): FileState | undefined {
  let fd: number;
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
    // A file growing meanwhile is read as it was at the stat; one shrinking, up to its end.
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

/** The stats of a regular file at `path` (not following a link), or undefined for anything else or nothing. */
function fileStats(path: string): Stats | undefined {
  try {
    const stats = lstatSync(path, { throwIfNoEntry: false });
    return stats?.isFile() ? stats : undefined;
  } catch {
    return undefined;
  }
}

/** Every field set, absent ones undefined: one object shape for all the files (V8 keeps it fast). */
function stateOf(stats: Stats, content?: Buffer, unkept?: FileState['unkept']): FileState {
  return { size: stats.size, mtimeMs: stats.mtimeMs, ctimeMs: stats.ctimeMs, ino: stats.ino, content, unkept };
}

/**
 * Size, mtime, ctime (which no program can set back, as `cp -p` or `tar` set mtime) and inode
 * (a file replaced by a rename is another file).
 */
function sameStats(a: FileState, b: FileState): boolean {
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs && a.ino === b.ino;
}

/**
 * What of a folder is not walked: all of it when it holds a marker file (unless it is a root: the
 * workspace itself is walked whatever it is); the private entries when it is an `OPERATOR_HOME`
 * (a `state` folder beside a `profiles` folder or one of the home's own files); else nothing
 * beyond {@link skippedFolderNames}.
 */
function skippedEntries(entries: Dirent[], root: boolean): 'all' | ReadonlySet<string> | undefined {
  let state = false;
  let homeFile = false;
  for (const entry of entries) {
    if (!root && markerFiles.has(entry.name)) return 'all';
    if (entry.name === 'state' && entry.isDirectory()) state = true;
    else if (entry.name === 'profiles' || entry.name === 'operator.json' || entry.name === 'gateway.json' || entry.name === 'web-token') homeFile = true;
  }
  return state && homeFile ? privateNames : undefined;
}

const privateNames: ReadonlySet<string> = new Set(privateEntries);

function whyWords(why: UnrecordedChange['why'], maxFileBytes: number): string {
  return why === 'binary' ? 'binary' : why === 'large' ? `over ${formatBytes(maxFileBytes)}` : 'unreadable';
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

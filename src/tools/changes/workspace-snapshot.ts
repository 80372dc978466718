/**
 * What a command did to the files of its workspace, for `/undo` and `/diff`. The work is done by
 * the turn's file worker, inside its sandbox (`files/worker/snapshot-ops.js`): the tree is walked
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
 */
import { randomUUID } from 'node:crypto';
import { errorMessage } from '../../core/errors.ts';
import { privateEntries } from '../../core/private-paths.ts';
import { defaultFileAccess, filesIn, localKey, type TurnFiles } from '../files/turn-files.ts';
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
const markerFiles = ['CACHEDIR.TAG', 'pyvenv.cfg'];

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
  /** The worker that walks (the command's turn's); default an unconfined one over `roots`. */
  files?: TurnFiles;
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

/** One-line notes name at most this many files. */
const namedInNote = 5;

/** A walk over a big tree is slow, but never as slow as this: past it the worker is stopped. */
const walkTimeoutMs = 120_000;

/** A snapshot of a workspace's files, taken before a command and kept in the worker (see the file's comment). */
export class WorkspaceSnapshot {
  readonly #files: TurnFiles;
  readonly #id: string;
  readonly #limits: SnapshotLimits;
  #untracked: string | undefined;

  private constructor(files: TurnFiles, limits: SnapshotLimits) {
    this.#files = files;
    this.#id = randomUUID();
    this.#limits = limits;
  }

  /** Walks `options.roots` now, keeping in the worker what a later {@link compare} needs. */
  static async take(options: WorkspaceSnapshotOptions): Promise<WorkspaceSnapshot> {
    const limits = { ...defaultSnapshotLimits, ...options.limits };
    const files = options.files ?? filesIn(defaultFileAccess(), localKey, { cwd: options.roots[0] ?? '/', roots: options.roots, writable: true, hidden: options.hidden ?? [] });
    const snapshot = new WorkspaceSnapshot(files, limits);
    try {
      const taken = await files.call<{ untracked?: string }>(
        'snapshotTake',
        {
          snapshot: snapshot.#id,
          roots: options.roots,
          hidden: options.hidden ?? [],
          limits,
          skippedNames: [...skippedFolderNames],
          markerFiles,
          privateNames: [...privateEntries],
        },
        { timeoutMs: walkTimeoutMs },
      );
      snapshot.#untracked = taken.untracked ?? undefined;
    } catch (error) {
      // Never in the way of the command itself.
      snapshot.#untracked = errorMessage(error);
    }
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
    if (this.#untracked !== undefined) {
      await this.#files.call('snapshotDrop', { snapshot: this.#id }).catch(() => undefined);
      return { changes: [], unrecorded: [], untracked: this.#untracked };
    }
    const diff = await this.#files.call<WorkspaceDiff>('snapshotCompare', { snapshot: this.#id }, { timeoutMs: walkTimeoutMs });
    if (diff.untracked === undefined || diff.untracked === null) delete diff.untracked;
    return diff;
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

function whyWords(why: UnrecordedChange['why'], maxFileBytes: number): string {
  return why === 'binary' ? 'binary' : why === 'large' ? `over ${formatBytes(maxFileBytes)}` : 'unreadable';
}

function formatBytes(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MiB` : `${bytes} bytes`;
}

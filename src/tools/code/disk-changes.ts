/**
 * What to tell a language server that watches nothing itself (gopls) about its project's files at
 * each call: the files made (`Created`), written (`Changed`) and removed (`Deleted`) since its last
 * call, found by comparing a listing of the project's files with the one kept from that call; or
 * nothing when nothing changed. The listing is the turn's file worker's (see `code-files.ts`),
 * taken in the seat's sandbox. On the first call, and whenever a listing fails (the worker's
 * error, its time limit, too many files), the server is told instead that the whole folder
 * changed, which makes it read again every file it read before: always right, but it then loads
 * the project's packages again (see `bench/RESULTS.md`).
 */
import path from 'node:path';
import { OpenDocuments } from './open-documents.ts';

/** Which of a project's files its server reads from disk. */
export interface DiskSelection {
  /** By extension, dot included: `.go`. */
  extensions: readonly string[];
  /** By name, or by path relative to the project folder (`vendor/modules.txt`). */
  names: readonly string[];
  /** Folders not looked into: by name, and by the start of their name (`.`, `_`). */
  skippedFolders: readonly string[];
  skippedPrefixes: readonly string[];
}

/** A listing of the project's selected files (see the worker's `stamps-op.js`). */
export interface DiskListing {
  /** Path relative to the project folder (`/`-separated), a stamp that moves whenever the file is written, its modification time in ms. */
  files: ReadonlyArray<readonly [string, string, number]>;
  /** When the listing started, by the same clock as the files' times. */
  listedAtMs: number;
  /** False when it stopped at its limits: then it is not used. */
  complete: boolean;
}

/** Lists the selected files below a project folder. */
export type DiskLister = (root: string, selection: DiskSelection) => Promise<DiskListing>;

/** One `workspace/didChangeWatchedFiles` event: `type` 1 created, 2 changed, 3 deleted. */
export interface FileEvent {
  uri: string;
  type: 1 | 2 | 3;
}

/**
 * A file written within this long before a listing may be written again with the same stamp
 * (a file system whose times are coarser than the writes: FAT's 2 s, the kernel's clock tick on
 * others): it is told as changed on the next call too, whatever its stamp then.
 */
const recentMs = 2_000;

/** The project files of one server, as last listed. */
export class DiskChanges {
  readonly #root: string;
  readonly #selection: DiskSelection;
  /** Stamps by relative path at the last call; undefined before the first or after a failed listing. */
  #stamps: Map<string, string> | undefined;
  /** Files written shortly before the last listing (see {@link recentMs}). */
  #recent = new Set<string>();

  constructor(root: string, selection: DiskSelection) {
    this.#root = root;
    this.#selection = selection;
  }

  /**
   * What to tell the server now, listing the files with `list`: the events since the last call,
   * sorted by path (none when nothing changed), or the whole folder as changed on the first call
   * or when the listing fails or is incomplete.
   */
  async events(list: DiskLister | undefined): Promise<FileEvent[]> {
    const listing = list === undefined ? undefined : await list(this.#root, this.#selection).catch(() => undefined);
    const before = this.#stamps;
    const recentBefore = this.#recent;
    if (listing === undefined || !listing.complete) {
      this.#stamps = undefined;
      this.#recent = new Set();
      return [this.#event('', 2)];
    }
    const stamps = new Map<string, string>();
    this.#recent = new Set();
    for (const [file, stamp, mtimeMs] of listing.files) {
      stamps.set(file, stamp);
      if (mtimeMs > listing.listedAtMs - recentMs) this.#recent.add(file);
    }
    this.#stamps = stamps;
    if (before === undefined) return [this.#event('', 2)];
    const events: Array<[string, 1 | 2 | 3]> = [];
    for (const [file, stamp] of stamps) {
      const was = before.get(file);
      if (was === undefined) events.push([file, 1]);
      else if (was !== stamp || recentBefore.has(file)) events.push([file, 2]);
    }
    for (const file of before.keys()) if (!stamps.has(file)) events.push([file, 3]);
    // Code-unit order: the same changes are told in the same order on every machine.
    events.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return events.map(([file, type]) => this.#event(file, type));
  }

  #event(file: string, type: 1 | 2 | 3): FileEvent {
    return { uri: OpenDocuments.uriOf(file === '' ? this.#root : path.join(this.#root, ...file.split('/'))), type };
  }
}

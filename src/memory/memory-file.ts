/**
 * One memory file (MEMORY.md or USER.md) with a character limit. Every change re-reads the file
 * under a per-path lock, so edits a person made by hand are the base of the next write; see
 * README.md for the format and invariants.
 */
import path from 'node:path';
import { AgentError } from '../core/errors.ts';
import { KeyedMutex } from '../store/keyed-mutex.ts';
import { appendToArchive, archivePathFor } from './memory-archive.ts';
import { fileMemoryStorage, type MemoryStorage } from './memory-storage.ts';
import { comparisonKey, entriesOf, normalizeEntry, parseMemory, renderMemory } from './memory-document.ts';
import type { MemorySegment } from './memory-document.ts';

type EntrySegment = Extract<MemorySegment, { kind: 'entry' }>;

/** Default limit of MEMORY.md, in characters of entries. */
export const defaultMemoryLimit = 2_200;
/** Default limit of USER.md, in characters of entries. */
export const defaultUserLimit = 1_375;

/** A change the caller asked for that cannot be made (no match, duplicate, too long). */
export class MemoryError extends AgentError {
  constructor(message: string) {
    super(message, { category: 'TOOL', retryable: false });
  }
}

/** How a memory file is opened. */
export interface MemoryFileOptions {
  /** Most characters of entries the file may hold. */
  limit: number;
  /** Clock for the archive headings; default `new Date()`. */
  now?: () => Date;
  /**
   * Where the text is kept. Default: the file at the path given (resolved to an absolute path).
   * With another storage (the Worker's KV) the location is that storage's name for it, as given.
   */
  storage?: MemoryStorage;
  /**
   * What error messages call the file (default: its base name, `MEMORY.md`), e.g. "this
   * conversation's MEMORY.md" for a conversation's own, whose location is a store key.
   */
  name?: string;
}

/** What a change did, with the fill level after it. */
export interface MemoryChange {
  /** The entry as written (add, replace). */
  entry?: string;
  /** The entry that was replaced or removed. */
  previous?: string;
  /** Oldest entries moved to the archive to make room, in file order. */
  archived: string[];
  used: number;
  limit: number;
}

/** One lock per absolute path, shared by every MemoryFile of the process. */
const locks = new KeyedMutex();

/** A memory file: entries, fill level, and add / replace / remove. */
export class MemoryFile {
  readonly path: string;
  /** `MEMORY.archive.md` beside `MEMORY.md`. */
  readonly archivePath: string;
  readonly limit: number;
  readonly #now: () => Date;
  readonly #storage: MemoryStorage;
  readonly #displayName: string | undefined;
  #segments: MemorySegment[] = [];

  private constructor(file: string, options: MemoryFileOptions) {
    if (!Number.isInteger(options.limit) || options.limit < 1) throw new RangeError(`Memory limit must be a positive integer, got ${options.limit}`);
    // A path is made absolute so one file has one lock, however it was named; another storage's
    // names are its own (a KV key is not a path).
    this.path = options.storage ? file : path.resolve(file);
    this.archivePath = archivePathFor(this.path);
    this.limit = options.limit;
    this.#now = options.now ?? (() => new Date());
    this.#storage = options.storage ?? fileMemoryStorage;
    this.#displayName = options.name;
  }

  /** Reads `file` (a missing file is empty; it is created on the first change). */
  static async open(file: string, options: MemoryFileOptions): Promise<MemoryFile> {
    const memory = new MemoryFile(file, options);
    await memory.reload();
    return memory;
  }

  /** Entry texts as of the last read or change, in file order (oldest first). */
  get entries(): string[] {
    return entriesOf(this.#segments);
  }

  /** The whole file as of the last read or change (text lines included), e.g. for the prompt. */
  get text(): string {
    return renderMemory(this.#segments);
  }

  /** Characters of all entries (markers and indentation not counted). */
  get used(): number {
    return usedBy(this.#segments);
  }

  /** Re-reads the file. */
  async reload(): Promise<void> {
    this.#segments = parseMemory(await this.#read());
  }

  /** Appends an entry; when it would not fit, the oldest entries are archived first. */
  add(text: string): Promise<MemoryChange> {
    return this.#change((segments) => {
      const entry = this.#checkEntry(text, segments);
      const added: EntrySegment = { kind: 'entry', text: entry };
      segments.push(added);
      return { entry, keep: added };
    });
  }

  /** Replaces the one entry containing `oldText` by `newText`. */
  replace(oldText: string, newText: string): Promise<MemoryChange> {
    return this.#change((segments) => {
      const index = this.#findOne(oldText, segments);
      const target = segments[index] as EntrySegment;
      const entry = this.#checkEntry(newText, segments, target);
      const replacement: EntrySegment = { kind: 'entry', text: entry };
      segments[index] = replacement;
      return { entry, previous: target.text, keep: replacement };
    });
  }

  /** Removes the one entry containing `oldText`. */
  remove(oldText: string): Promise<MemoryChange> {
    return this.#change((segments) => {
      const index = this.#findOne(oldText, segments);
      const [removed] = segments.splice(index, 1) as [EntrySegment];
      return { previous: removed.text };
    });
  }

  /**
   * Under the file's lock: re-read, apply `edit`, and when it wrote an entry (`keep`) archive the
   * oldest other entries while over the limit; write the archive first, then the file. A removal
   * never archives, even in a file a person filled past its limit.
   */
  #change(edit: (segments: MemorySegment[]) => { entry?: string; previous?: string; keep?: EntrySegment }): Promise<MemoryChange> {
    return locks.run(this.path, async () => {
      const segments = parseMemory(await this.#read());
      const { entry, previous, keep } = edit(segments);
      const archived: string[] = [];
      while (keep && usedBy(segments) > this.limit) {
        const oldest = segments.findIndex((segment) => segment.kind === 'entry' && segment !== keep);
        if (oldest === -1) break;
        const [moved] = segments.splice(oldest, 1) as [EntrySegment];
        archived.push(moved.text);
      }
      if (archived.length > 0) await appendToArchive(this.archivePath, archived, this.#now(), this.#storage);
      await this.#storage.write(this.path, renderMemory(segments));
      this.#segments = segments;
      return { entry, previous, archived, used: usedBy(segments), limit: this.limit };
    });
  }

  /** The normalized entry, or a MemoryError when it is empty, too long or a duplicate. */
  #checkEntry(text: string, segments: readonly MemorySegment[], replacing?: MemorySegment): string {
    const entry = normalizeEntry(text);
    if (entry === '') throw new MemoryError('the entry is empty');
    if (entry.length > this.limit) {
      throw new MemoryError(
        `the entry is ${entry.length} characters, more than the whole limit of ${this.limit} of ${this.#name()}; shorten it`,
      );
    }
    const key = comparisonKey(entry);
    const duplicate = segments.find((segment) => segment.kind === 'entry' && segment !== replacing && comparisonKey(segment.text) === key);
    if (duplicate) throw new MemoryError(`${this.#name()} already has this exact entry: "${entry}"`);
    return entry;
  }

  /** Index of the one entry containing `oldText`, or a MemoryError saying what matched. */
  #findOne(oldText: string, segments: readonly MemorySegment[]): number {
    const needle = comparisonKey(oldText);
    if (needle === '') throw new MemoryError('old_text is empty; give a piece of the entry to change');
    const matches: number[] = [];
    segments.forEach((segment, index) => {
      if (segment.kind === 'entry' && comparisonKey(segment.text).includes(needle)) matches.push(index);
    });
    if (matches.length === 0) throw new MemoryError(`no entry of ${this.#name()} contains "${oldText}"`);
    // The whole text of an entry names that entry, even where it is part of a longer one too.
    const exact = matches.find((index) => comparisonKey((segments[index] as EntrySegment).text) === needle);
    if (exact !== undefined) return exact;
    const texts = matches.map((index) => (segments[index] as EntrySegment).text);
    // Identical entries (only a hand edit can make them) are one fact: acting on the first is safe.
    if (new Set(texts.map(comparisonKey)).size > 1) {
      const listed = texts.map((text) => `"${shorten(text)}"`).join(', ');
      throw new MemoryError(
        `"${oldText}" matches ${matches.length} entries of ${this.#name()}: ${listed}; give a longer old_text that occurs in only one of them`,
      );
    }
    return matches[0]!;
  }

  #read(): Promise<string> {
    return this.#storage.read(this.path);
  }

  #name(): string {
    return this.#displayName ?? path.basename(this.path);
  }
}

function usedBy(segments: readonly MemorySegment[]): number {
  let used = 0;
  for (const segment of segments) if (segment.kind === 'entry') used += segment.text.length;
  return used;
}

function shorten(text: string, length = 80): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length <= length ? line : `${line.slice(0, length - 3)}...`;
}

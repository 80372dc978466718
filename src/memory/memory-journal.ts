/**
 * Where every memory entry came from. Beside each memory file (`MEMORY.md`, a person's notes, a
 * conversation's own) its journal (`MEMORY.log.json`) keeps the latest changes: what was added,
 * replaced or removed, when, and from what (a person's words in which conversation and turn, the
 * background reviewer, a tool result, a chat command). `/memory` reads it to show each entry's
 * source, `/memory log` to list the changes, `/memory undo` to revert the last. Entries a person
 * edits by hand have no record: they show as written by hand.
 *
 * The journal is JSON in the file's own storage (a file beside a profile's memory, a store value
 * beside a conversation's or a person's), so it works wherever the memory does. It keeps the
 * latest {@link journalCap} records; older ones fall off (the entries themselves stay).
 */
import * as z from 'zod';
import { JsonListFile } from './json-list-file.ts';
import { comparisonKey } from './memory-document.ts';
import type { MemoryStorage } from './memory-storage.ts';

/**
 * What a change came from: `words` (what the people of the turn said), `tool` (a tool result the
 * turn read: a web page, another bot), `reviewer` (the background review), `flush` (the save
 * before a long conversation is compacted), `command` (`/memory` in the chat).
 */
export type SourceKind = 'words' | 'tool' | 'reviewer' | 'flush' | 'command';

/** Where a change came from. */
export interface MemorySource {
  kind: SourceKind;
  /** The conversation (its session key), e.g. `telegram:group:-100`. */
  conversation?: string;
  /** The person of the turn, `platform:id`. */
  person?: string;
  /** Their display name then. */
  name?: string;
  /** The turn (the platform's message id), where known. */
  turn?: string;
  /** What untrusted content the turn held (a page's address), for `tool`. */
  content?: string;
}

/** One change to a memory file. */
export interface MemoryRecord {
  /** ISO time. */
  at: string;
  action: 'add' | 'replace' | 'remove' | 'keep' | 'undo';
  /** The entry as written (add, replace, keep; undo: what the revert wrote back, if anything). */
  entry?: string;
  /** The entry replaced or removed (undo: what the revert took out, if anything). */
  previous?: string;
  source: MemorySource;
  /** A later `/memory undo` reverted this change. */
  undone?: boolean;
}

/** How many records a journal keeps. */
export const journalCap = 200;

/** A {@link MemorySource} as read back (the held entries use it too). */
export const memorySourceSchema = z.object({
  kind: z.enum(['words', 'tool', 'reviewer', 'flush', 'command']),
  conversation: z.string().optional(),
  person: z.string().optional(),
  name: z.string().optional(),
  turn: z.string().optional(),
  content: z.string().optional(),
});

const recordSchema = z.object({
  at: z.string(),
  action: z.enum(['add', 'replace', 'remove', 'keep', 'undo']),
  entry: z.string().optional(),
  previous: z.string().optional(),
  source: memorySourceSchema,
  undone: z.boolean().optional(),
});

/** The journal's location beside a memory file's: `MEMORY.md` -> `MEMORY.log.json`. */
export function journalLocationFor(location: string): string {
  return `${location.replace(/\.md$/, '')}.log.json`;
}

/** The records of one memory file's journal, oldest first. */
export class MemoryJournal {
  readonly #list: JsonListFile<MemoryRecord>;

  constructor(fileLocation: string, storage: MemoryStorage) {
    this.#list = new JsonListFile(journalLocationFor(fileLocation), storage, recordSchema as z.ZodType<MemoryRecord>, journalCap);
  }

  get location(): string {
    return this.#list.location;
  }

  /** The records, oldest first; a damaged journal reads as the records that still parse. */
  records(): Promise<MemoryRecord[]> {
    return this.#list.read();
  }

  /** Adds `record` at the end (the oldest fall off past the cap). */
  append(record: MemoryRecord): Promise<void> {
    return this.update((records) => [...records, record]);
  }

  /** Rewrites the records with `change` under the journal's lock. */
  update(change: (records: MemoryRecord[]) => MemoryRecord[]): Promise<void> {
    return this.#list.update(change);
  }
}

/** The last record that wrote `entry` (add, replace or keep), if the journal still has one. */
export function sourceOf(records: readonly MemoryRecord[], entry: string): MemoryRecord | undefined {
  const key = comparisonKey(entry);
  for (let index = records.length - 1; index >= 0; index--) {
    const record = records[index]!;
    if (record.action === 'remove' || record.action === 'undo' || record.undone || record.entry === undefined) continue;
    if (comparisonKey(record.entry) === key) return record;
  }
  return undefined;
}

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
import { KeyedMutex } from '../store/keyed-mutex.ts';
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

/** One lock per journal location, so two changes in a row both land. */
const locks = new KeyedMutex();

/** The journal's location beside a memory file's: `MEMORY.md` -> `MEMORY.log.json`. */
export function journalLocationFor(location: string): string {
  return `${location.replace(/\.md$/, '')}.log.json`;
}

/** The records of one memory file's journal, oldest first. */
export class MemoryJournal {
  readonly location: string;
  readonly #storage: MemoryStorage;

  constructor(fileLocation: string, storage: MemoryStorage) {
    this.location = journalLocationFor(fileLocation);
    this.#storage = storage;
  }

  /** The records, oldest first; a damaged journal reads as the records that still parse. */
  async records(): Promise<MemoryRecord[]> {
    return parseJsonList(await this.#storage.read(this.location), recordSchema) as MemoryRecord[];
  }

  /** Adds `record` at the end (the oldest fall off past the cap). */
  append(record: MemoryRecord): Promise<void> {
    return this.update((records) => [...records, record]);
  }

  /** Rewrites the records with `change` under the journal's lock. */
  update(change: (records: MemoryRecord[]) => MemoryRecord[]): Promise<void> {
    return locks.run(this.location, async () => {
      const records = change(await this.records()).slice(-journalCap);
      await this.#storage.write(this.location, JSON.stringify(records));
    });
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

/**
 * The items of a JSON list that match `schema`; a damaged list (a half-written file, a hand edit)
 * reads as the items that still parse, or none.
 */
export function parseJsonList<T>(text: string, schema: z.ZodType<T>): T[] {
  if (text.trim() === '') return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  return value.flatMap((item) => {
    const parsed = schema.safeParse(item);
    return parsed.success ? [parsed.data] : [];
  });
}

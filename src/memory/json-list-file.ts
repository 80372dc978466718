/**
 * A capped JSON list kept beside a memory file, in the file's own storage (a file, a store value,
 * a KV key): the memory's journal and its held entries. Read whole, changed under a per-location
 * lock (within the process), written whole; a damaged list (a half-written file, a hand edit)
 * reads as the items that still parse.
 */
import type * as z from 'zod';
import { KeyedMutex } from '../store/keyed-mutex.ts';
import type { MemoryStorage } from './memory-storage.ts';

const locks = new KeyedMutex();

/** One list at `location` of `storage`, keeping its last `cap` items that match `schema`. */
export class JsonListFile<T> {
  readonly location: string;
  readonly #storage: MemoryStorage;
  readonly #schema: z.ZodType<T>;
  readonly #cap: number;

  constructor(location: string, storage: MemoryStorage, schema: z.ZodType<T>, cap: number) {
    this.location = location;
    this.#storage = storage;
    this.#schema = schema;
    this.#cap = cap;
  }

  /** The items, oldest first. */
  async read(): Promise<T[]> {
    return parseJsonList(await this.#storage.read(this.location), this.#schema);
  }

  /** Rewrites the list with `change` under its lock; the oldest items past the cap fall off. */
  update(change: (items: T[]) => T[]): Promise<void> {
    return locks.run(this.location, async () => {
      await this.#storage.write(this.location, JSON.stringify(change(await this.read()).slice(-this.#cap)));
    });
  }
}

/** The items of a JSON list that match `schema`; anything else (or nothing that parses) reads as none. */
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

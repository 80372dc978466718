/**
 * Entries kept apart. What the agent wanted to save in a turn that held untrusted content (a web
 * page, another bot's message) could be that content's instruction rather than a fact: it is not
 * written to the memory file, whose text goes into prompts, but held beside it
 * (`MEMORY.held.json`) with its source, never shown to the model. A person who may change the file
 * keeps it (`/memory keep N`, then it is an entry like any other) or forgets it.
 */
import * as z from 'zod';
import { JsonListFile } from './json-list-file.ts';
import { comparisonKey, normalizeEntry } from './memory-document.ts';
import { memorySourceSchema, type MemorySource } from './memory-journal.ts';
import type { MemoryStorage } from './memory-storage.ts';

/** One held entry. */
export interface HeldEntry {
  entry: string;
  /** ISO time. */
  at: string;
  source: MemorySource;
}

/** How many entries a file holds apart; the oldest fall off. */
export const heldCap = 50;

const heldSchema = z.object({ entry: z.string(), at: z.string(), source: memorySourceSchema });

/** The held entries' location beside a memory file's: `MEMORY.md` -> `MEMORY.held.json`. */
export function heldLocationFor(location: string): string {
  return `${location.replace(/\.md$/, '')}.held.json`;
}

/** The entries held apart from one memory file. */
export class HeldMemory {
  readonly #list: JsonListFile<HeldEntry>;

  constructor(fileLocation: string, storage: MemoryStorage) {
    this.#list = new JsonListFile(heldLocationFor(fileLocation), storage, heldSchema as z.ZodType<HeldEntry>, heldCap);
  }

  get location(): string {
    return this.#list.location;
  }

  /** The held entries, oldest first. */
  list(): Promise<HeldEntry[]> {
    return this.#list.read();
  }

  /** Holds `text` (normalized; one already held is not held twice). */
  hold(text: string, source: MemorySource, now: Date): Promise<string> {
    const entry = normalizeEntry(text);
    return this.#list
      .update((entries) => (entries.some((held) => comparisonKey(held.entry) === comparisonKey(entry)) ? entries : [...entries, { entry, at: now.toISOString(), source }]))
      .then(() => entry);
  }

  /** Takes out the held entry equal to `entry`; resolves to it, or undefined when it is no longer held. */
  async take(entry: string): Promise<HeldEntry | undefined> {
    let taken: HeldEntry | undefined;
    await this.#list.update((entries) => {
      const index = entries.findIndex((held) => comparisonKey(held.entry) === comparisonKey(entry));
      if (index === -1) return entries;
      taken = entries[index];
      return entries.filter((_, at) => at !== index);
    });
    return taken;
  }
}

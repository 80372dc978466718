/**
 * Where a memory file's text is kept. On Node it is a file (the default, {@link fileMemoryStorage});
 * the Worker keeps MEMORY.md and USER.md in KV instead, with the same document logic on top, so a
 * memory behaves the same whichever runtime the agent runs in.
 */
import { readFileSync, statSync } from 'node:fs';
import { writeFileAtomic } from '../core/atomic-write.ts';

/** Reads and replaces the whole text of a memory file (or its archive) by its location. */
export interface MemoryStorage {
  /** The text at `location`; `''` when nothing is there yet (it is made on the first write). */
  read(location: string): Promise<string>;
  /** Replaces the text at `location`; a reader sees the old text or the new one, never a mix. */
  write(location: string, text: string): Promise<void>;
}

/** Files: `location` is a path; written atomically (temp file, then rename), folders made as needed. */
export const fileMemoryStorage: MemoryStorage = {
  /**
   * Synchronous on purpose: a memory file is capped at a few kilobytes and read for every new
   * conversation's prompt, where a thread-pool round trip cost more than the read itself.
   */
  async read(location) {
    try {
      // Mostly missing (a person or conversation with no memory yet): a stat tells so without the
      // cost of an ENOENT error object.
      if (statSync(location, { throwIfNoEntry: false }) === undefined) return '';
      return readFileSync(location, 'utf8');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ENOENT') return '';
      throw error;
    }
  },
  write: (location, text) => writeFileAtomic(location, text),
};

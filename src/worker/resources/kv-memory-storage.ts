/**
 * MEMORY.md and USER.md on Workers: the same memory documents as on Node (`src/memory`), kept in
 * the `RESOURCES` namespace under `memory:<profile>:MEMORY.md` (and `USER.md`, and their
 * `.archive.md`). Until the agent first writes one, it reads as the file uploaded with the
 * profile's bundle (its seed); from then on KV has it and a new upload leaves it alone.
 */
import type { Storage } from 'unstorage';
import type { MemoryStorage } from '../../memory/memory-storage.ts';
import { readText } from '../cloudflare-storage.ts';

/** The memory files of a profile. */
export type MemoryFileName = 'MEMORY.md' | 'USER.md';

/** The KV key of one of a profile's memory files: also its location for `MemoryFile`. */
export function memoryKey(profile: string, file: MemoryFileName): string {
  return `memory:${profile}:${file}`;
}

/**
 * A {@link MemoryStorage} whose locations are KV keys, in `kv` (`resourcesStorage`). `seed` gives
 * a location's text while KV has none (called on every read, so a reloaded bundle's seed is seen).
 */
export function kvMemoryStorage(kv: Storage, seed: (location: string) => string | undefined): MemoryStorage {
  return {
    async read(location) {
      return (await readText(kv, location)) ?? seed(location) ?? '';
    },
    async write(location, text) {
      // Raw: the text as it is, never serialised. A KV put replaces the value whole: readers see
      // the old text or the new one.
      await kv.setItemRaw(location, text);
    },
  };
}

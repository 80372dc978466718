/**
 * A conversation's own memory: what the `memory` tool keeps from seats other than the owner's (a
 * group, another person's direct messages), shown in that conversation's prompt only. Same format,
 * limits and rules as the profile's MEMORY.md and USER.md (see README.md); only where the text is
 * kept differs. On Node it is the store (`conversation-memory:<conversation>:MEMORY.md`), under
 * OPERATOR_HOME's private `state/` folder on the filesystem, so no tool of any seat can read or
 * change it, and it lives as long as the conversation's sessions do, restarts included.
 */
import type { Store } from '../store/store.ts';
import type { MemoryStorage } from './memory-storage.ts';

/** The two memory files, as the profile names them and as each conversation keeps its own. */
export type MemoryFileName = 'MEMORY.md' | 'USER.md';

/** Where every conversation's own memory files are kept. */
export interface ConversationMemoryPlace {
  storage: MemoryStorage;
  /** The location in `storage` of `file` of the conversation with session key `sessionKey`. */
  location(sessionKey: string, file: MemoryFileName): string;
  /**
   * The location in `storage` of the notes about `person` (`platform:id`): what the agent learned
   * about them in seats other than the owner's, shown in their own turns only, wherever they are.
   */
  personLocation(person: string): string;
}

/**
 * Conversations' memory in `store`: each file one value (its text) at
 * `conversation-memory:<segment(sessionKey)>:<file>`, and its archive beside it. `segment` turns a
 * session key into one key segment (`keySegment`), so no key can reach another conversation's.
 */
export function storeConversationMemory(store: Pick<Store, 'get' | 'set'>, segment: (sessionKey: string) => string): ConversationMemoryPlace {
  return {
    storage: {
      async read(location) {
        const text = await store.get<unknown>(location);
        return typeof text === 'string' ? text : '';
      },
      // A store value is replaced whole: a reader sees the old text or the new one.
      write: (location, text) => store.set(location, text),
    },
    location: (sessionKey, file) => `conversation-memory:${segment(sessionKey)}:${file}`,
    personLocation: (person) => `person-memory:${segment(person)}:USER.md`,
  };
}

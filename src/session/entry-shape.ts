/**
 * The minimal shape check of a stored entry: enough for the tree and the context builder to use
 * it safely, not a full validation of its message.
 */
import type { SessionEntry } from './types.ts';

/** Why `entry` is not a well-formed entry, or `undefined` when it is. */
export function entryShapeProblem(entry: SessionEntry): string | undefined {
  if (typeof entry.id !== 'string' || entry.id === '') return 'entry without id';
  if (typeof entry.timestamp !== 'number') return `entry ${entry.id} without timestamp`;
  switch (entry.type) {
    case 'message':
      return typeof entry.message === 'object' && entry.message !== null && Array.isArray(entry.message.content)
        ? undefined
        : `message entry ${entry.id} without a message`;
    case 'compaction':
      return typeof entry.summary === 'string' && typeof entry.firstKeptEntryId === 'string'
        ? undefined
        : `compaction entry ${entry.id} without summary`;
    case 'model_change':
      return typeof entry.model === 'string' ? undefined : `model change ${entry.id} without model`;
    case 'custom':
      return typeof entry.customType === 'string' ? undefined : `custom entry ${entry.id} without customType`;
    default:
      return `entry ${String((entry as { id: unknown }).id)} of unknown type`;
  }
}

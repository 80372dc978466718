export { writeFileAtomic } from '../core/atomic-write.ts';
export { appendToArchive, archivePathFor } from './memory-archive.ts';
export { comparisonKey, normalizeEntry, parseMemory, renderMemory, type MemorySegment } from './memory-document.ts';
export {
  MemoryError,
  MemoryFile,
  defaultMemoryLimit,
  defaultUserLimit,
  type MemoryChange,
  type MemoryFileOptions,
} from './memory-file.ts';
export { memoryHeader, type MemoryLabel } from './memory-header.ts';
export { storeConversationMemory, type ConversationMemoryPlace, type MemoryFileName } from './conversation-memory.ts';
export { fileMemoryStorage, type MemoryStorage } from './memory-storage.ts';
export { HeldMemory, heldLocationFor, type HeldEntry } from './held-memory.ts';
export { MemoryJournal, journalLocationFor, sourceOf, type MemoryRecord, type MemorySource, type SourceKind } from './memory-journal.ts';
export { changeEntry, heldOf, journalOf, keepHeld, lastChange, openShelf, undoLastChange, type EntryChange, type MemoryShelf } from './memory-shelf.ts';

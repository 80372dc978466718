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

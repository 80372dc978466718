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
export { memoryHeader } from './memory-header.ts';
export { fileMemoryStorage, type MemoryStorage } from './memory-storage.ts';

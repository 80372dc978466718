/** Where entries go when a memory file is full: `MEMORY.archive.md` beside `MEMORY.md`. */
import path from 'node:path';
import { renderEntry } from './memory-document.ts';
import { fileMemoryStorage, type MemoryStorage } from './memory-storage.ts';

/** `MEMORY.md` -> `MEMORY.archive.md`; a name without `.md` gets `.archive.md` appended. */
export function archivePathFor(file: string): string {
  const extension = path.extname(file);
  const stem = extension.toLowerCase() === '.md' ? file.slice(0, -extension.length) : file;
  return `${stem}.archive.md`;
}

/**
 * Appends `entries` under a `## Archived YYYY-MM-DD` heading (UTC date), in `storage` (files by
 * default). The caller holds the memory file's lock, which also covers its archive.
 */
export async function appendToArchive(archivePath: string, entries: readonly string[], date: Date, storage: MemoryStorage = fileMemoryStorage): Promise<void> {
  const existing = await storage.read(archivePath);
  const separator = existing === '' ? '' : existing.endsWith('\n') ? '\n' : '\n\n';
  const block = [`## Archived ${date.toISOString().slice(0, 10)}`, '', ...entries.flatMap(renderEntry)].join('\n');
  await storage.write(archivePath, `${existing}${separator}${block}\n`);
}

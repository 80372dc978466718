/** Where entries go when a memory file is full: `MEMORY.archive.md` beside `MEMORY.md`. */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../core/atomic-write.ts';
import { renderEntry } from './memory-document.ts';

/** `MEMORY.md` -> `MEMORY.archive.md`; a name without `.md` gets `.archive.md` appended. */
export function archivePathFor(file: string): string {
  const extension = path.extname(file);
  const stem = extension.toLowerCase() === '.md' ? file.slice(0, -extension.length) : file;
  return `${stem}.archive.md`;
}

/**
 * Appends `entries` under a `## Archived YYYY-MM-DD` heading (UTC date). The caller holds the
 * memory file's lock, which also covers its archive.
 */
export async function appendToArchive(archivePath: string, entries: readonly string[], date: Date): Promise<void> {
  let existing = '';
  try {
    existing = await readFile(archivePath, 'utf8');
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ENOENT') throw error;
  }
  const separator = existing === '' ? '' : existing.endsWith('\n') ? '\n' : '\n\n';
  const block = [`## Archived ${date.toISOString().slice(0, 10)}`, '', ...entries.flatMap(renderEntry)].join('\n');
  await writeFileAtomic(archivePath, `${existing}${separator}${block}\n`);
}

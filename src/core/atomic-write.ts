/** Whole-file writes that a crash or a concurrent reader never sees half done. */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { makePrivateFolder, privateFileMode } from './private-modes.ts';

/**
 * Writes `text` to `file` through a temp file in the same folder (so the rename stays on one
 * filesystem and is atomic), flushed to disk before the rename. Missing folders are created
 * (0700); the temp file is removed when anything fails. The file is private (0600) unless `mode`
 * says otherwise, from its creation, so its content is never readable by others, not even for a
 * moment: everything written this way lies under `OPERATOR_HOME` (tokens, memory, skills).
 */
export async function writeFileAtomic(file: string, text: string, options: { mode?: number } = {}): Promise<void> {
  const folder = path.dirname(file);
  await makePrivateFolder(folder);
  const temp = path.join(folder, `.${path.basename(file)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', options.mode ?? privateFileMode);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

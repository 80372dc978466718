/** A file's text as a change compares it: its content, or null when there is no such file. */
import { readFile } from 'node:fs/promises';
import { errorCode } from '../builtin/results.ts';

/** A file's content now, or null when it does not exist. */
export async function readCurrent(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return null;
    throw error;
  }
}

/** A file's text as a change compares it: its content, or null when there is no such file. */
import { readFileSync } from 'node:fs';
import { errorCode } from '../builtin/results.ts';

/**
 * A file's content now, or null when it does not exist. Read synchronously: it is taken just
 * before a tool writes the file, where the thread pool's round trip would cost more than the read.
 */
export async function readCurrent(path: string): Promise<string | null> {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    if (errorCode(error) === 'ENOENT' || errorCode(error) === 'ENOTDIR') return null;
    throw error;
  }
}

/** A file's text as a change compares it: its content, or null when there is no such file. */
import type { TurnFiles } from '../files/turn-files.ts';

/** A file's content now, or null when it does not exist; read by the conversation's file worker. */
export async function readCurrent(files: TurnFiles, path: string): Promise<string | null> {
  return (await files.call<{ content: string | null }>('readText', { path })).content;
}

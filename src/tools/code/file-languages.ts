/** The LSP language id of a file, by its extension (see `server-kinds.ts`). */
import path from 'node:path';
import { serverKindOf } from './server-kinds.ts';

/** The LSP language id of `file`, or undefined for a file no language server of the code tool handles. */
export function languageOf(file: string): string | undefined {
  return serverKindOf(file)?.extensions[path.extname(file).toLowerCase()];
}

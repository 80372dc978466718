/** The files the TypeScript language server handles, by extension, with their LSP language ids. */
import path from 'node:path';

/** Extension (lower case, with the dot) to the LSP language id the server expects. */
const languages: Readonly<Record<string, string>> = {
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'typescriptreact',
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascriptreact',
};

/** The extensions handled, for messages: `.ts, .tsx, ...`. */
export const supportedExtensions: readonly string[] = Object.keys(languages);

/** The LSP language id of `file`, or undefined for a file the server does not handle. */
export function languageOf(file: string): string | undefined {
  return languages[path.extname(file).toLowerCase()];
}

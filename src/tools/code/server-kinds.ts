/**
 * The languages the `code` tool knows, each with the language servers that speak it: TypeScript
 * and JavaScript through operator's own `typescript-language-server`, and Rust, Python and Go
 * through a server installed on the machine, where one is (see `installed-servers.ts`). A file's
 * language is picked by its extension.
 */
import path from 'node:path';

/** One language and the servers for it. */
export interface ServerKind {
  /** `typescript`, `rust`, `python`, `go`. */
  id: string;
  /** How people call it: `TypeScript and JavaScript`, `Rust`. */
  language: string;
  /** Extension (lower case, with the dot) to the LSP language id the server expects. */
  extensions: Readonly<Record<string, string>>;
  /** The programs looked for on the machine, in order of preference (none for TypeScript: operator's own). */
  programs: readonly string[];
  /** How to install one, for a message. */
  install: string;
}

/** Every language, TypeScript first. */
export const serverKinds: readonly ServerKind[] = [
  {
    id: 'typescript',
    language: 'TypeScript and JavaScript',
    extensions: { '.ts': 'typescript', '.mts': 'typescript', '.cts': 'typescript', '.tsx': 'typescriptreact', '.js': 'javascript', '.mjs': 'javascript', '.cjs': 'javascript', '.jsx': 'javascriptreact' },
    programs: [],
    install: "operator's own dependencies typescript-language-server and typescript (npm ci in operator's folder)",
  },
  { id: 'rust', language: 'Rust', extensions: { '.rs': 'rust' }, programs: ['rust-analyzer'], install: 'rustup component add rust-analyzer' },
  {
    id: 'python',
    language: 'Python',
    extensions: { '.py': 'python', '.pyi': 'python' },
    programs: ['pyright-langserver', 'basedpyright-langserver', 'pylsp'],
    install: 'npm install -g pyright, or apt-get install python3-pylsp',
  },
  { id: 'go', language: 'Go', extensions: { '.go': 'go' }, programs: ['gopls'], install: 'go install golang.org/x/tools/gopls@latest, or apt-get install gopls' },
];

/** The language of `file` by its extension, or undefined for one the code tool does not know. */
export function serverKindOf(file: string): ServerKind | undefined {
  const extension = path.extname(file).toLowerCase();
  return serverKinds.find((kind) => extension in kind.extensions);
}

/** Every extension known, for messages: `.ts, .tsx, ..., .rs, .py, .go`. */
export const knownExtensions: readonly string[] = serverKinds.flatMap((kind) => Object.keys(kind.extensions));

/**
 * The languages the `code` tool knows, each with the language servers that speak it: TypeScript
 * and JavaScript through operator's own `typescript-language-server`, Python through `pylsp` and
 * Go through `gopls` where the machine has them, and Rust through a server installed on the
 * machine, found and listed but not driven yet (see `installed-servers.ts`). A file's language is
 * picked by its extension.
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
  /** The arguments that make a program say its version, where they are not `--version` (gopls: `version`). */
  versionArguments?: Readonly<Record<string, readonly string[]>>;
  /**
   * A program the server runs, which must be on the `PATH` it is given (gopls runs `go`): without
   * it the server is listed as not running here, with how to install it.
   */
  needs?: { program: string; install: string };
  /**
   * The programs the code tool drives (speaks to), of {@link programs}; the others are found and
   * listed only. Absent for TypeScript (operator's own server, always driven).
   */
  driven?: readonly string[];
  /** The files that make a folder a project, nearest first (see `project-root.ts`). */
  projectMarkers: readonly string[];
  /** Whether a file in no project folder is served with the workspace root as its project. */
  workspaceFallback: boolean;
}

/** Every language, TypeScript first. */
export const serverKinds: readonly ServerKind[] = [
  {
    id: 'typescript',
    language: 'TypeScript and JavaScript',
    extensions: { '.ts': 'typescript', '.mts': 'typescript', '.cts': 'typescript', '.tsx': 'typescriptreact', '.js': 'javascript', '.mjs': 'javascript', '.cjs': 'javascript', '.jsx': 'javascriptreact' },
    programs: [],
    install: "operator's own dependencies typescript-language-server and typescript (npm ci in operator's folder)",
    projectMarkers: ['tsconfig.json', 'package.json'],
    workspaceFallback: false,
  },
  {
    id: 'rust',
    language: 'Rust',
    extensions: { '.rs': 'rust' },
    programs: ['rust-analyzer'],
    install: 'rustup component add rust-analyzer',
    projectMarkers: ['Cargo.toml'],
    workspaceFallback: false,
  },
  {
    id: 'python',
    language: 'Python',
    extensions: { '.py': 'python', '.pyi': 'python' },
    // pylsp first: the one the code tool drives.
    programs: ['pylsp', 'pyright-langserver', 'basedpyright-langserver'],
    install: 'apt-get install python3-pylsp python3-pyflakes',
    driven: ['pylsp'],
    projectMarkers: ['pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt'],
    // A folder of scripts is a Python project too: the workspace root is its folder.
    workspaceFallback: true,
  },
  {
    id: 'go',
    language: 'Go',
    extensions: { '.go': 'go' },
    programs: ['gopls'],
    install: 'apt-get install gopls golang-go, or go install golang.org/x/tools/gopls@latest',
    // gopls has no `--version`.
    versionArguments: { gopls: ['version'] },
    needs: { program: 'go', install: 'apt-get install golang-go' },
    driven: ['gopls'],
    projectMarkers: ['go.mod'],
    workspaceFallback: false,
  },
];

/** The language of `file` by its extension, or undefined for one the code tool does not know. */
export function serverKindOf(file: string): ServerKind | undefined {
  const extension = path.extname(file).toLowerCase();
  return serverKinds.find((kind) => extension in kind.extensions);
}

/** Every extension known, for messages: `.ts, .tsx, ..., .rs, .py, .go`. */
export const knownExtensions: readonly string[] = serverKinds.flatMap((kind) => Object.keys(kind.extensions));

/**
 * Whether the code tool drives the server `status` found for its language: TypeScript's always,
 * another language's when it runs here and is one of its {@link ServerKind.driven} programs.
 */
export function isDriven(status: { kind: ServerKind; state: string; path?: string }): boolean {
  if (status.kind.programs.length === 0) return status.state === 'ready';
  return status.state === 'ready' && status.path !== undefined && (status.kind.driven ?? []).includes(path.basename(status.path));
}

/**
 * Whether a TypeScript language server can run here, and from where: operator's own
 * `typescript-language-server` dependency (its entry script, run with this Node, no shell) and
 * operator's own `typescript`, whose tsserver is the only one the server is ever told to run (a
 * workspace's own `node_modules/typescript` is never used). Either missing (an install without
 * them), the `code` tool is simply not offered.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Where operator's language server and TypeScript are installed (real paths). */
export interface ServerInstall {
  /** The server's entry script, run as `node <script> --stdio`. */
  script: string;
  /** The `typescript-language-server` package folder (the script needs nothing outside it). */
  serverFolder: string;
  /** operator's `typescript` package folder. */
  typescriptFolder: string;
  /** Its `lib/tsserver.js`. */
  tsserver: string;
  /** Its version, as its `package.json` says. */
  typescriptVersion: string;
}

/**
 * Finds the language server and TypeScript as Node would resolve them from `from` (a file URL or
 * path; default this module), or undefined when either is missing. Reads three `package.json`
 * files, starts nothing.
 */
export function locateServerInstall(from: string | URL = import.meta.url): ServerInstall | undefined {
  const require = createRequire(from);
  const packageFolder = (name: string): string | undefined => {
    try {
      return realpathSync(path.dirname(require.resolve(`${name}/package.json`)));
    } catch {
      return undefined;
    }
  };
  const serverFolder = packageFolder('typescript-language-server');
  const typescriptFolder = packageFolder('typescript');
  if (serverFolder === undefined || typescriptFolder === undefined) return undefined;
  const script = manifestOf(serverFolder)?.bin?.['typescript-language-server'];
  const typescriptVersion = manifestOf(typescriptFolder)?.version;
  const tsserver = path.join(typescriptFolder, 'lib', 'tsserver.js');
  if (script === undefined || typescriptVersion === undefined || !existsSync(script) || !existsSync(tsserver)) return undefined;
  return { script, serverFolder, typescriptFolder, tsserver, typescriptVersion };
}

let installed: ServerInstall | null | undefined;

/** {@link locateServerInstall} from operator's own modules, looked up once per process. */
export function serverInstall(): ServerInstall | undefined {
  if (installed === undefined) installed = locateServerInstall() ?? null;
  return installed ?? undefined;
}

/** Whether the `code` tool can work here (see {@link serverInstall}). */
export function codeToolAvailable(): boolean {
  return serverInstall() !== undefined;
}

/** A package's `version` and `bin` (as absolute paths), or undefined when its manifest cannot be read. */
function manifestOf(folder: string): { version?: string; bin?: Record<string, string> } | undefined {
  try {
    const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as { version?: unknown; bin?: unknown; name?: unknown };
    const version = typeof manifest.version === 'string' ? manifest.version : undefined;
    let bin: Record<string, string> | undefined;
    if (typeof manifest.bin === 'string' && typeof manifest.name === 'string') bin = { [manifest.name]: path.resolve(folder, manifest.bin) };
    else if (manifest.bin && typeof manifest.bin === 'object') {
      bin = Object.fromEntries(Object.entries(manifest.bin).filter((entry): entry is [string, string] => typeof entry[1] === 'string').map(([name, file]) => [name, path.resolve(folder, file)]));
    }
    return { version, bin };
  } catch {
    return undefined;
  }
}

/**
 * Whether a TypeScript language server can run here, and how to start it: the
 * `typescript-language-server` dependency's entry script (run with this Node, no shell) and a
 * `typescript` whose `tsserver.js` serves workspaces that have none of their own. Either missing
 * (an install without them), the `code` tool is simply not offered.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** How to start the language server. */
export interface ServerInstall {
  /** The server's entry script, run as `node <script> --stdio`. */
  script: string;
  /**
   * operator's own `typescript/lib/tsserver.js`: used for a workspace without its own
   * `node_modules/typescript` (the server prefers the workspace's).
   */
  tsserver: string;
}

/**
 * Finds the language server and TypeScript as Node would resolve them from `from` (a file URL or
 * path; default this module), or undefined when either is missing. Reads two `package.json`
 * files, starts nothing.
 */
export function locateServerInstall(from: string | URL = import.meta.url): ServerInstall | undefined {
  const require = createRequire(from);
  const packageFolder = (name: string): string | undefined => {
    try {
      return path.dirname(require.resolve(`${name}/package.json`));
    } catch {
      return undefined;
    }
  };
  const serverFolder = packageFolder('typescript-language-server');
  const typescriptFolder = packageFolder('typescript');
  if (serverFolder === undefined || typescriptFolder === undefined) return undefined;
  const script = binOf(serverFolder, 'typescript-language-server');
  const tsserver = path.join(typescriptFolder, 'lib', 'tsserver.js');
  if (script === undefined || !existsSync(script) || !existsSync(tsserver)) return undefined;
  return { script, tsserver };
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

/** The absolute path of the package's executable `name`, from its `package.json` `bin`. */
function binOf(folder: string, name: string): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as { bin?: string | Record<string, string> };
    const bin = typeof manifest.bin === 'string' ? manifest.bin : manifest.bin?.[name];
    return bin === undefined ? undefined : path.resolve(folder, bin);
  } catch {
    return undefined;
  }
}

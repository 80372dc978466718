/**
 * A language server as a program for the seat's sandbox. TypeScript's: run with this Node and no shell, in
 * the project folder, seeing the workspace root that holds the project read-only, operator's own
 * language server, TypeScript and tsserver launcher read-only, and Node's install where the
 * system view does not show it; of the system only its programs and libraries; no network,
 * nothing writable but its private `/tmp` (the server's cancellation files), the
 * allowlisted environment. With bubblewrap that is all it sees (OPERATOR_HOME is never there);
 * without it (the owner's seats alone) it runs as operator's child with that environment.
 * Another language's (`pylsp`, `gopls`) runs the same way, seeing the workspace root read-only, the
 * program's own folder and the system's programs and libraries (`/usr`, where Debian's Python and
 * its packages are), and nothing else; gopls also the `go` command and its install, read-only,
 * with its caches in its private `/tmp` (see `go-toolchain.ts`).
 */
import { realpathSync } from 'node:fs';
import path from 'node:path';
import { isInside } from '../../guardrails/real-path.ts';
import type { SandboxProgram } from '../sandbox/sandbox.ts';
import { serverProgramOf } from './installed-servers.ts';
import type { ServerInstall } from './server-install.ts';
import type { TsserverLauncher } from './tsserver-launcher.ts';

/** What one language server sees. */
export interface ServerScope {
  /** The project folder (absolute, real): the server's working directory and root. */
  project: string;
  /** The folders it may read (absolute, real): the workspace root that holds the project. */
  roots: readonly string[];
  /** Its language (see `server-kinds.ts`): `typescript` (the default), `python` or `go`. */
  language?: string;
}

/** The language server of `scope` as a sandbox program. */
export function serverProgram(install: ServerInstall, launcher: TsserverLauncher, scope: ServerScope): SandboxProgram {
  const node = nodeExecutable();
  return {
    argv: [node.path, install.script, '--stdio'],
    cwd: scope.project,
    writable: [],
    readOnly: [...scope.roots, install.serverFolder, install.typescriptFolder, launcher.folder, ...(node.folder === undefined ? [] : [node.folder])],
    network: false,
    // operator's own helper: of the system, programs and libraries alone (no /etc settings; it
    // needs no names, certificates or users).
    system: 'minimal',
  };
}

/** The installed server `file` (as found, see `installed-servers.ts`) for `scope`, as a sandbox program. */
export function installedServerProgram(file: string, scope: ServerScope, env: NodeJS.ProcessEnv): SandboxProgram {
  const program = serverProgramOf(file, [], scope.project, env);
  return { ...program, readOnly: [...scope.roots, ...(program.readOnly ?? [])] };
}

let node: { path: string; folder: string | undefined } | undefined;

/**
 * This process's Node (real path), and the folder of its install to bind when the system view
 * (`/usr` and the folders linked into it) does not show it: `<prefix>` for `<prefix>/bin/node`
 * (nvm, a tarball in `/opt`), so the libraries beside it come along.
 */
function nodeExecutable(): { path: string; folder: string | undefined } {
  if (!node) {
    const real = realpathSync(process.execPath);
    const bin = path.dirname(real);
    const prefix = path.basename(bin) === 'bin' && path.dirname(bin) !== '/' ? path.dirname(bin) : bin;
    node = { path: real, folder: isInside('/usr', real) ? undefined : prefix };
  }
  return node;
}

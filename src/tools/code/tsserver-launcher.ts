/**
 * The tsserver the language server is told to run: a small script operator writes into a private
 * folder of its own (0700, under the system's temp folder) that loads operator's own TypeScript
 * with plugin loading turned off, then starts its tsserver.
 *
 * Why a script: tsserver loads the plugins a project's `tsconfig.json` names
 * (`compilerOptions.plugins`) from the folders around its own install, and a workspace that holds
 * operator's install (operator run from its own checkout, or from a folder above it) puts
 * packages anyone with `shell` there can write on that path. tsserver loads every plugin through
 * one function, `sys.require`, and loads none when it is absent; this script removes it before
 * tsserver starts. The language server wants the file named `tsserver.js` with a `package.json`
 * two folders up that gives TypeScript's version, so the folder has both.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ServerInstall } from './server-install.ts';

/** A written launcher. */
export interface TsserverLauncher {
  /** The private folder holding it: the sandbox binds it read-only for the server. */
  folder: string;
  /** The script, to give the language server as `tsserver.path`. */
  tsserver: string;
}

/** Writes the launcher for `install` into a new private folder under `parent` (default the system's temp folder). */
export async function writeTsserverLauncher(install: ServerInstall, parent = tmpdir()): Promise<TsserverLauncher> {
  const folder = await mkdtemp(path.join(parent, 'operator-tsserver-'));
  // The language server sets NODE_PATH for tsserver to the folder above the package's: this
  // private folder, not the shared temp folder.
  const lib = path.join(folder, 'typescript', 'lib');
  await mkdir(lib, { recursive: true, mode: 0o700 });
  const manifest = { name: 'operator-tsserver', version: install.typescriptVersion, private: true, type: 'commonjs' };
  await writeFile(path.join(folder, 'typescript', 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`, { mode: 0o600 });
  const tsserver = path.join(lib, 'tsserver.js');
  await writeFile(tsserver, launcherScript(install), { mode: 0o600 });
  return { folder, tsserver };
}

/** Whether the launcher's script is still there (a temp cleaner may have removed it). */
export function launcherPresent(launcher: TsserverLauncher): boolean {
  return existsSync(launcher.tsserver);
}

/** Removes the launcher's folder. */
export async function removeTsserverLauncher(launcher: TsserverLauncher): Promise<void> {
  await rm(launcher.folder, { recursive: true, force: true });
}

function launcherScript(install: ServerInstall): string {
  const typescript = JSON.stringify(path.join(install.typescriptFolder, 'lib', 'typescript.js'));
  return [
    `// Written by operator for the code tool's language server: TypeScript ${install.typescriptVersion}'s own tsserver`,
    `// from ${JSON.stringify(install.typescriptFolder)}, with plugin loading turned off.`,
    `'use strict';`,
    `require(${typescript}).sys.require = undefined;`,
    `require(${JSON.stringify(install.tsserver)});`,
    '',
  ].join('\n');
}

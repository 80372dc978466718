/** Programs of the machine, looked for by name in a list of folders (a `PATH`). */
import { accessSync, constants, statSync } from 'node:fs';
import path from 'node:path';
import { safeEnv } from '../safe-env.ts';

/** Whether `file` is a regular file this process may run. */
export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The first `folder/program` that can be run, of `folders` in order, or undefined. */
export function findProgram(program: string, folders: readonly string[]): string | undefined {
  return folders.map((folder) => path.join(folder, program)).find(isExecutable);
}

/** The folders of the `PATH` the sandbox gives its programs: the gateway's (see `safeEnv`). */
export function sandboxPath(env: NodeJS.ProcessEnv): string[] {
  return safeEnv(env).PATH!.split(path.delimiter).filter((folder) => path.isAbsolute(folder));
}

/** Finding programs on this machine without running them. */
import { accessSync, constants } from 'node:fs';
import path from 'node:path';

/** Whether `file` exists and may be run. */
export function isExecutable(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The first runnable `name` in the absolute folders of the PATH-style `searchPath`, or undefined. */
export function findExecutable(name: string, searchPath: string): string | undefined {
  return searchPath
    .split(path.delimiter)
    .filter((folder) => path.isAbsolute(folder))
    .map((folder) => path.join(folder, name))
    .find(isExecutable);
}

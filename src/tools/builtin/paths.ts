/** How the built-in tools find files: relative to the call's working directory. */
import { homedir } from 'node:os';
import path from 'node:path';
import type { FileAccess } from '../files/file-access.ts';
import { defaultFileAccess } from '../files/turn-files.ts';
import type { Sandbox } from '../sandbox/sandbox.ts';
import type { ToolContext } from '../tool.ts';

/** Options every built-in tool accepts. */
export interface BuiltinToolOptions {
  /**
   * Directory a relative `context.cwd` (or an empty one) is resolved against. Defaults to the
   * process's working directory. An absolute `context.cwd` wins.
   */
  cwd?: string;
  /**
   * Where `shell` runs commands (see `createSandbox`). Default: the `none` sandbox, which runs
   * them directly with the allowlisted environment.
   */
  sandbox?: Sandbox;
  /**
   * Where the file tools do their work: file workers in the seat's sandbox (see
   * `files/file-access.ts`). Default: unconfined workers, for tests and scripts.
   */
  files?: FileAccess;
}

/** The file access of `options`, or the default one. */
export function fileAccessOf(options: BuiltinToolOptions): FileAccess {
  return options.files ?? defaultFileAccess();
}

/** The absolute working directory of one tool call. */
export function workingDirectory(options: BuiltinToolOptions, context: Pick<ToolContext, 'cwd'>): string {
  return path.resolve(options.cwd ?? process.cwd(), context.cwd);
}

/** Resolves a path the model gave: absolute, `~/`-relative, or relative to `cwd`. */
export function resolvePath(cwd: string, target: string): string {
  if (target === '~') return homedir();
  if (target.startsWith('~/')) return path.join(homedir(), target.slice(2));
  return path.resolve(cwd, target);
}

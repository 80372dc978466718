/**
 * What Go's language server, `gopls`, needs in the sandbox beyond itself: the `go` command it runs
 * to load packages (`go list`), and the Go install that command belongs to, both read-only; and an
 * environment that keeps every go command offline and its writes in the sandbox's private `/tmp`.
 */
import { existsSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { findProgram, sandboxPath } from './program-files.ts';

/** The `go` command the sandbox's `PATH` leads to, and its install. */
export interface GoToolchain {
  /** The command as found on `PATH` (its folder is shown to the server). */
  command: string;
  /**
   * Its install, `GOROOT` (`/usr/lib/go-1.19` for Debian's): where the standard library's sources
   * are. Undefined when the command is not in the `bin` of a Go install.
   */
  root?: string;
}

/**
 * The `go` on the `PATH` the sandbox gives its programs (the gateway's, see `safeEnv`), or
 * undefined. Its install is the folder above the `bin` it really lives in, counted only when it
 * holds the standard library's `src/runtime`: a `go` alone in some other folder's `bin` must not
 * show the server that whole folder.
 */
export function findGoToolchain(env: NodeJS.ProcessEnv): GoToolchain | undefined {
  const command = findProgram('go', sandboxPath(env));
  if (command === undefined) return undefined;
  const bin = path.dirname(realpathSync(command));
  const root = path.dirname(bin);
  const isInstall = path.basename(bin) === 'bin' && root !== path.dirname(root) && existsSync(path.join(root, 'src', 'runtime'));
  return isInstall ? { command, root } : { command };
}

/**
 * The environment of gopls and the go commands it runs. The build cache and `GOPATH` (with its
 * module cache) are in the sandbox's private `/tmp`, made for each server and gone with it;
 * nothing is downloaded (`GOPROXY=off`: a module the project requires is found in its `vendor`
 * folder or not at all), and no other toolchain is fetched for a `go.mod` that asks for one.
 * `GOFLAGS` is emptied, should the sandbox's settings pass the owner's (`-mod=mod`): Go's default
 * then reads `go.mod` and never changes it (the workspace is read-only anyway), or uses the
 * project's `vendor` folder where it has one.
 */
export const goEnvironment: Readonly<Record<string, string>> = {
  GOPATH: '/tmp/go',
  GOCACHE: '/tmp/go-build',
  GOPROXY: 'off',
  GOTOOLCHAIN: 'local',
  GO111MODULE: 'on',
  GOFLAGS: '',
  GOTELEMETRY: 'off',
};

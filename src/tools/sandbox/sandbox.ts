/**
 * The command sandbox contract. Every child process a tool starts (today the `shell` tool's)
 * runs through a {@link Sandbox}: on Linux bubblewrap gives it its own PID namespace, a view of
 * the workspace and the system's read-only folders only, and an environment built from an
 * allowlist. Where no sandbox can run, the `none` sandbox still builds the allowlisted
 * environment, and the gateway offers `shell` only in the owner's own conversations.
 */

import type { OwnNetworkSpec } from './own-network.ts';

/** How commands are isolated (`sandbox` in operator.json). */
export interface SandboxSettings {
  /** `auto`: bubblewrap when installed; `required`: refuse to start without it; `off`: never. */
  mode: 'auto' | 'required' | 'off';
  /** Commands may use the network: a namespace of their own through slirp4netns where installed, else the machine's (loopback services included). */
  network: boolean;
  /** Extra folders commands may read. */
  readOnly: readonly string[];
  /** Extra folders commands may change. */
  readWrite: readonly string[];
  /** Extra environment variable names passed to commands (secret-looking ones stay withheld). */
  env: readonly string[];
  /** Longest a file tool's call may take in its worker (see `files/file-access.ts`); default 30. */
  fileTimeoutSeconds?: number;
}

/** One command to run inside the sandbox. */
export interface SandboxCommand {
  /** Shell executable, run as `shell -c command`. */
  shell: string;
  command: string;
  /** Working directory (inside one of `writable`). */
  cwd: string;
  /** Folders the command may change: the turn's workspace roots. */
  writable: readonly string[];
  /** Folders this command alone may read (beyond `settings.readOnly`), e.g. a program's own install. */
  readOnly?: readonly string[];
}

/**
 * A program run directly (no shell) inside the sandbox: a helper operator starts for a seat, such
 * as the process that does the file tools' work or the `code` tool's language server.
 */
export interface SandboxProgram {
  /** The executable and its arguments; the executable must be visible inside (see `readOnly`). */
  argv: readonly string[];
  /** Working directory. */
  cwd: string;
  /** Folders the program may change. */
  writable: readonly string[];
  /** Folders the program may read, beyond the system view and `settings.readOnly`. */
  readOnly?: readonly string[];
  /** Whether it may use the network; default `settings.network`. */
  network?: boolean;
  /** Environment variables set beyond the allowlisted ones (never a secret). */
  env?: Readonly<Record<string, string>>;
  /** Folders (and files) covered wherever a bound folder would show them, instead of the sandbox's own list. */
  hidden?: readonly string[];
  /**
   * `minimal`: of the system, only programs and libraries (no `/etc` settings but the loader's),
   * for operator's own helpers. Default `full`, what commands see.
   */
  system?: 'full' | 'minimal';
  /** Whether its private `/tmp` is writable. Default true; a helper that writes nothing of its own says false. */
  scratch?: boolean;
}

/** What to hand `child_process.spawn` for a {@link SandboxCommand}. */
export interface SpawnSpec {
  file: string;
  args: string[];
  env: Record<string, string>;
  /** The working directory to spawn in (outside the sandbox). */
  cwd: string;
  /**
   * Set when the command gets a network namespace of its own: the spawner must start
   * slirp4netns for it right after spawning (`attachOwnNetwork`, as `runCommand` does), or the
   * command never starts.
   */
  ownNetwork?: OwnNetworkSpec;
}

/** Runs commands isolated from operator's own state and secrets. */
export interface Sandbox {
  /** `bubblewrap` when commands are isolated, `none` when they run as operator's children. */
  readonly kind: 'bubblewrap' | 'none';
  /** One line for the start-up output, e.g. `commands run in bubblewrap (network on, a namespace of its own through slirp4netns)`. */
  describe(): string;
  /** How to spawn the command. */
  spawnSpec(command: SandboxCommand): SpawnSpec;
  /** How to spawn a program directly, with the same boundary as a command. */
  programSpec(program: SandboxProgram): SpawnSpec;
}

/** The settings when operator.json says nothing: bubblewrap when installed, network on. */
export const defaultSandboxSettings: SandboxSettings = { mode: 'auto', network: true, readOnly: [], readWrite: [], env: [], fileTimeoutSeconds: 30 };

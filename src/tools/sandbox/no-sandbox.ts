/** The `none` sandbox: commands run as operator's own children, with the allowlisted environment. */
import { homedir } from 'node:os';
import { safeEnv } from '../safe-env.ts';
import type { Sandbox } from './sandbox.ts';

/** Options of {@link createNoSandbox}. */
export interface NoSandboxOptions {
  /** Environment the command's is taken from (see `safeEnv`); read at each command. */
  env: NodeJS.ProcessEnv;
  /** Names passed beyond the allowlist (`sandbox.env`). */
  extraEnv?: readonly string[];
  /** Why commands are not sandboxed, for {@link Sandbox.describe}. */
  reason: string;
}

/**
 * Runs the shell directly. Nothing is hidden from the command but operator's environment: it
 * gets the allowlisted variables, with the real HOME (and TMPDIR when set).
 */
export function createNoSandbox(options: NoSandboxOptions): Sandbox {
  const environment = () => {
    const env = safeEnv(options.env, options.extraEnv);
    env.HOME = options.env.HOME ?? homedir();
    if (options.env.TMPDIR) env.TMPDIR = options.env.TMPDIR;
    return env;
  };
  return {
    kind: 'none',
    describe: () => `commands and file tools are not sandboxed: ${options.reason}; they are offered only in the owner's own conversations`,
    spawnSpec(command) {
      return { file: command.shell, args: ['-c', command.command], env: environment(), cwd: command.cwd };
    },
    programSpec(program) {
      const [file, ...args] = program.argv;
      if (file === undefined) throw new RangeError('programSpec needs a program to run');
      return { file, args, env: { ...environment(), ...program.env }, cwd: program.cwd };
    },
  };
}

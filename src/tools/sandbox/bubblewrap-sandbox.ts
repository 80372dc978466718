/** The `bubblewrap` sandbox: each command in its own namespaces, seeing only what it may use. */
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';
import { safeEnv } from '../safe-env.ts';
import { bubblewrapArgs } from './bubblewrap-args.ts';
import { describeCommandNetwork, type Slirp4netnsDetection } from './detect-slirp4netns.ts';
import { planMounts } from './mount-plan.ts';
import type { Sandbox, SandboxProgram, SandboxSettings, SpawnSpec } from './sandbox.ts';
import { minimalSystemMounts, systemMounts } from './system-view.ts';

/** Options of {@link createBubblewrapSandbox}. */
export interface BubblewrapSandboxOptions {
  /** The `bwrap` executable (found and checked by `detectBubblewrap`). */
  bwrap: string;
  settings: SandboxSettings;
  /** Folders never shown, even inside the workspace (OPERATOR_HOME), but for roots inside them. */
  hidden: readonly string[];
  /** Environment the command's is taken from (see `safeEnv`); read at each command. */
  env: NodeJS.ProcessEnv;
  /** Whether a command with the network on gets a namespace of its own; without it, it shares this machine's. */
  ownNetwork?: Slirp4netnsDetection;
}

/** Inside the sandbox HOME and TMPDIR are its private /tmp, so nothing is written to the real home. */
const privateHome = '/tmp';

/**
 * Commands see the system's programs read-only, `settings.readOnly` read-only, the command's
 * writable roots and `settings.readWrite` read-write, their own /tmp, /proc and /dev, and
 * nothing else; a hidden folder is covered wherever one of those would show it. Paths are
 * resolved at each command, so folders made after start-up count.
 */
export function createBubblewrapSandbox(options: BubblewrapSandboxOptions): Sandbox {
  const { settings } = options;
  return {
    kind: 'bubblewrap',
    describe: () => `commands run in bubblewrap (${describeCommandNetwork(settings.network, options.ownNetwork)})`,
    spawnSpec(command) {
      return spec({ argv: [command.shell, '-c', command.command], cwd: command.cwd, writable: command.writable, readOnly: command.readOnly });
    },
    programSpec(program) {
      return spec(program);
    },
  };

  function spec(program: SandboxProgram): SpawnSpec {
    const cwd = realPath(program.cwd) ?? path.resolve(program.cwd);
    const mounts = planMounts({
      system: program.system === 'minimal' ? minimalSystemMounts() : systemMounts(),
      readOnly: realPaths([...settings.readOnly, ...(program.readOnly ?? [])]),
      writable: realPaths([...program.writable, ...settings.readWrite]),
      hidden: realPaths(program.hidden ?? options.hidden).filter(isDirectory),
      hiddenFiles: realPaths(program.hidden ?? options.hidden).filter((entry) => !isDirectory(entry)),
      cwd,
    });
    // After every mount under it is made: a write there would otherwise seem to work, and vanish.
    if (program.scratch === false) mounts.push({ kind: 'remount-ro', path: privateHome });
    const env = { ...safeEnv(options.env, settings.env), ...program.env, HOME: privateHome, TMPDIR: privateHome };
    const network = program.network ?? settings.network;
    const ownNetwork = network && options.ownNetwork?.found ? options.ownNetwork.spec : undefined;
    const args = bubblewrapArgs({ network, ownNetwork, mounts, cwd, argv: program.argv });
    // bwrap itself runs with the command's environment: it is the sandbox's process 1, whose
    // /proc/1/environ the command can read.
    return { file: options.bwrap, args, env, cwd: '/', ...(ownNetwork && { ownNetwork }) };
  }
}

/** The real paths of those that exist, each once. */
function realPaths(paths: readonly string[]): string[] {
  return [...new Set(paths.map(realPath).filter((real) => real !== undefined))];
}

function realPath(target: string): string | undefined {
  try {
    return realpathSync(target);
  } catch {
    return undefined;
  }
}

function isDirectory(target: string): boolean {
  return statSync(target, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

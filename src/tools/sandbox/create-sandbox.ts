/** Chooses the sandbox for commands: bubblewrap when it works here, else none (and says why). */
import { ConfigurationError } from '../../core/errors.ts';
import { createBubblewrapSandbox } from './bubblewrap-sandbox.ts';
import { detectBubblewrap, probeBubblewrap, type DetectBubblewrapOptions } from './detect-bubblewrap.ts';
import { detectSlirp4netns, type Slirp4netnsDetection } from './detect-slirp4netns.ts';
import { createNoSandbox } from './no-sandbox.ts';
import type { Sandbox, SandboxSettings } from './sandbox.ts';

/** What {@link createSandbox} needs besides the settings. */
export interface CreateSandboxOptions {
  /** Folders commands never see (OPERATOR_HOME), but for workspace roots inside them. */
  hidden: readonly string[];
  /** Operator's environment: commands get its allowlisted part, and `bwrap` is looked for on its PATH. */
  env: NodeJS.ProcessEnv;
  /** The `bwrap` executable instead of the one on PATH (a missing path means none is installed). */
  bwrap?: string;
  /** The `slirp4netns` executable instead of the one on PATH (a missing path means none is installed). */
  slirp4netns?: string;
}

/**
 * The sandbox `settings` ask for. `off`, or `auto` without a working bubblewrap, gives the `none`
 * sandbox, whose `describe()` says why; `required` without one throws.
 *
 * @throws ConfigurationError when `settings.mode` is `required` and bubblewrap cannot run.
 * @example
 * const sandbox = createSandbox(config.sandbox, { hidden: [operatorHome], env: process.env });
 * log(sandbox.describe()); // "commands run in bubblewrap (network on, a namespace of its own through slirp4netns)"
 */
export function createSandbox(settings: SandboxSettings, options: CreateSandboxOptions): Sandbox {
  const none = (reason: string) => createNoSandbox({ env: options.env, extraEnv: settings.env, reason });
  if (settings.mode === 'off') return none('the sandbox is off in operator.json (sandbox.mode)');
  const detection = detectBubblewrap(detectionOptions(settings, options));
  if (detection.found) return bubblewrapSandbox(settings, options, detection.bwrap, detectSlirp4netns({ slirp4netns: options.slirp4netns, searchPath: options.env.PATH }));
  if (settings.mode === 'required') {
    throw new ConfigurationError(
      `sandbox.mode is "required" in operator.json, but ${detection.reason}. Install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap; ` +
        'it needs Linux), or set sandbox.mode to "auto" to run commands unsandboxed, offering shell only in the owner\'s own conversations.',
      { setting: 'sandbox.mode' },
    );
  }
  return none(detection.reason);
}

/**
 * Starts, without blocking, the check {@link createSandbox} makes with the same arguments, so
 * that its answer is ready when the sandbox is made (the gateway's start overlaps it with loading
 * the platforms' code). Never rejects.
 */
export function prepareSandbox(settings: SandboxSettings, options: CreateSandboxOptions): Promise<void> {
  return settings.mode === 'off' ? Promise.resolve() : probeBubblewrap(detectionOptions(settings, options));
}

function bubblewrapSandbox(settings: SandboxSettings, options: CreateSandboxOptions, bwrap: string, ownNetwork?: Slirp4netnsDetection): Sandbox {
  return createBubblewrapSandbox({ bwrap, settings, hidden: options.hidden, env: options.env, ownNetwork });
}

function detectionOptions(settings: SandboxSettings, options: CreateSandboxOptions): DetectBubblewrapOptions {
  return {
    bwrap: options.bwrap,
    searchPath: options.env.PATH,
    // Without the own network's hand-over, which the probe does not need.
    probe: (bwrap) => bubblewrapSandbox(settings, options, bwrap).spawnSpec({ shell: '/bin/sh', command: 'exit 0', cwd: '/', writable: [] }),
  };
}

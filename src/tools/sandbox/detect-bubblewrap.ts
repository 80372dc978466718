/**
 * Whether bubblewrap can sandbox commands here: `bwrap` is found, and one real sandbox starts
 * (it fails where user namespaces are off, in some containers). Checked once per executable
 * and command line, synchronously: it runs at start-up and takes a few milliseconds.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { findExecutable, isExecutable } from '../../core/executables.ts';
import type { SpawnSpec } from './sandbox.ts';

/** A usable `bwrap`, or why there is none. */
export type BubblewrapDetection = { found: true; bwrap: string } | { found: false; reason: string };

/** Options of {@link detectBubblewrap}. */
export interface DetectBubblewrapOptions {
  /** The executable to use; default the first `bwrap` on `searchPath`, then in /usr/bin. */
  bwrap?: string;
  /** A PATH-style list of folders. */
  searchPath?: string;
  /** The command line of a sandbox that runs `exit 0`, made with the `bwrap` found. */
  probe: (bwrap: string) => SpawnSpec;
}

const install = 'apt-get install bubblewrap';
const checked = new Map<string, BubblewrapDetection>();

/** Finds `bwrap` and starts one sandbox with it (the result is cached). */
export function detectBubblewrap(options: DetectBubblewrapOptions): BubblewrapDetection {
  if (process.platform !== 'linux') return { found: false, reason: `bubblewrap needs Linux, and this is ${process.platform}` };
  const bwrap = options.bwrap ?? findExecutable('bwrap', `${options.searchPath ?? ''}${path.delimiter}/usr/bin${path.delimiter}/usr/local/bin`);
  if (bwrap === undefined || !isExecutable(bwrap)) {
    return { found: false, reason: `bwrap was not found${options.bwrap ? ` at ${options.bwrap}` : ''} (${install})` };
  }
  const spec = options.probe(bwrap);
  const key = JSON.stringify([spec.file, spec.args]);
  let detection = checked.get(key);
  if (!detection) {
    detection = run(bwrap, spec);
    checked.set(key, detection);
  }
  return detection;
}

function run(bwrap: string, spec: SpawnSpec): BubblewrapDetection {
  const result = spawnSync(spec.file, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: 10_000 });
  if (result.error) return { found: false, reason: `${bwrap} could not be run: ${result.error.message}` };
  if (result.status === 0) return { found: true, bwrap };
  const said = result.stderr.trim().split('\n')[0]?.slice(0, 200) || `exit code ${result.status ?? result.signal}`;
  return { found: false, reason: `${bwrap} cannot make a sandbox here (${said}); user namespaces may be disabled` };
}

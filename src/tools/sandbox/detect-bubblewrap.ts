/**
 * Whether bubblewrap can sandbox commands here: `bwrap` is found, and one real sandbox starts
 * (it fails where user namespaces are off, in some containers). Checked once per executable
 * and command line. {@link detectBubblewrap} answers synchronously (from the cache when
 * {@link probeBubblewrap} already ran the same command line); the gateway's start runs the probe
 * in the background first, so its 20-40 ms pass while the platform code loads.
 */
import { spawn, spawnSync } from 'node:child_process';
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

/** How long the probe sandbox may take to run `exit 0`. */
const probeTimeoutMs = 10_000;

/** Finds `bwrap` and starts one sandbox with it (the result is cached). */
export function detectBubblewrap(options: DetectBubblewrapOptions): BubblewrapDetection {
  const found = findBubblewrap(options);
  if (!found.ok) return found.detection;
  let detection = checked.get(found.key);
  if (!detection) {
    const result = spawnSync(found.spec.file, found.spec.args, { cwd: found.spec.cwd, env: found.spec.env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', timeout: probeTimeoutMs });
    detection = verdict(found.bwrap, result.error, result.status, result.signal, result.stderr);
    checked.set(found.key, detection);
  }
  return detection;
}

/**
 * Runs the probe of {@link detectBubblewrap} without blocking, and caches its result for the
 * same options; never rejects (a failure is cached as the detection says it).
 */
export async function probeBubblewrap(options: DetectBubblewrapOptions): Promise<void> {
  const found = findBubblewrap(options);
  if (!found.ok || checked.has(found.key)) return;
  const { file, args, cwd, env } = found.spec;
  const detection = await new Promise<BubblewrapDetection>((resolve) => {
    let stderr = '';
    const child = spawn(file, args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'], timeout: probeTimeoutMs });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    let error: Error | undefined;
    child.on('error', (failure) => (error = failure));
    child.on('close', (status, signal) => resolve(verdict(found.bwrap, error, status, signal, stderr)));
  });
  // A synchronous detection that ran meanwhile decided first; it stays.
  if (!checked.has(found.key)) checked.set(found.key, detection);
}

type Found = { ok: true; bwrap: string; spec: SpawnSpec; key: string } | { ok: false; detection: BubblewrapDetection };

function findBubblewrap(options: DetectBubblewrapOptions): Found {
  if (process.platform !== 'linux') return { ok: false, detection: { found: false, reason: `bubblewrap needs Linux, and this is ${process.platform}` } };
  const bwrap = options.bwrap ?? findExecutable('bwrap', `${options.searchPath ?? ''}${path.delimiter}/usr/bin${path.delimiter}/usr/local/bin`);
  if (bwrap === undefined || !isExecutable(bwrap)) {
    return { ok: false, detection: { found: false, reason: `bwrap was not found${options.bwrap ? ` at ${options.bwrap}` : ''} (${install})` } };
  }
  const spec = options.probe(bwrap);
  return { ok: true, bwrap, spec, key: JSON.stringify([spec.file, spec.args]) };
}

function verdict(bwrap: string, error: Error | undefined, status: number | null, signal: NodeJS.Signals | null, stderr: string): BubblewrapDetection {
  if (error) return { found: false, reason: `${bwrap} could not be run: ${error.message}` };
  if (status === 0) return { found: true, bwrap };
  const said = stderr.trim().split('\n')[0]?.slice(0, 200) || `exit code ${status ?? signal}`;
  return { found: false, reason: `${bwrap} cannot make a sandbox here (${said}); user namespaces may be disabled` };
}

/**
 * The Worker in local workerd for the benchmarks, as close to production as this machine gets:
 * built exactly as for deployment (`wrangler deploy --dry-run --outdir`, the bundle Cloudflare
 * would receive), then loaded by Miniflare, the library `wrangler dev` itself runs workerd with,
 * with both Durable Object classes SQLite-backed as `wrangler.toml` declares them. Miniflare
 * directly rather than `wrangler dev`: no proxy worker in front and no file watcher, so what is
 * timed is workerd and the Worker. The bundle is wrapped in the bench-only entry of
 * `workers-bench-entry.ts` (counters and a storage footprint; never part of the Worker).
 */
import { Miniflare } from 'miniflare';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { root } from './gateway-process.ts';
import { benchEntrySource } from './workers-bench-entry.ts';

/** What a conversation's object holds (see `workers-bench-entry.ts`). */
export interface Footprint {
  keys: number;
  /** UTF-8 bytes of its keys and values. */
  bytes: number;
  /** `ctx.storage.sql.databaseSize`: the SQLite database, the size Cloudflare bills storage by. */
  databaseSize: number;
}

/** What the objects of one class did since the counters were last set to zero. */
export interface ClassCounts {
  objects: number;
  /** Billed requests by method (`accept`, `alarm`, `check`, ...). */
  requests: Record<string, number>;
  rowsRead: number;
  rowsWritten: number;
  /** Storage calls by method (`get`, `put`, `list`, `setAlarm`, ...). */
  calls: Record<string, number>;
}

/** The Worker running in local workerd. */
export interface LocalWorker {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** The workerd process (for its CPU time). */
  readonly pid: number;
  footprint(sessionKey: string): Promise<Footprint>;
  /** The counters per Durable Object class (`conversation`, `access`). */
  counts(): Promise<Record<string, ClassCounts>>;
  resetCounts(): Promise<void>;
  /** The last 64 KB workerd wrote (the Worker's console lines, its errors), kept out of the results table. */
  output(): string;
  close(): Promise<void>;
}

/**
 * Builds the Worker from the repository's `wrangler.toml` into `outdir` as `wrangler deploy`
 * would upload it (nothing is uploaded: `--dry-run`), and puts the bench entry beside it.
 * Resolves with the entry's path.
 */
export async function buildWorker(outdir: string): Promise<string> {
  await wranglerBuild([], outdir);
  const entry = join(outdir, 'bench-entry.mjs');
  writeFileSync(entry, benchEntrySource);
  return entry;
}

/**
 * Builds the relay Worker of `workers-relay-entry.ts` into `outdir` the way {@link buildWorker}
 * builds the Worker (wrangler's bundler, the repository's compatibility date and flags), from a
 * config of its own written there. Resolves with the entry's path.
 */
export async function buildRelay(outdir: string): Promise<string> {
  mkdirSync(outdir, { recursive: true });
  const { compatibilityDate, compatibilityFlags } = compatibility();
  const config = join(outdir, 'wrangler.toml');
  writeFileSync(config, [`name = "operator-bench-relay"`, `main = ${JSON.stringify(join(root, 'bench', 'workers-relay-entry.ts'))}`, `compatibility_date = "${compatibilityDate}"`, `compatibility_flags = ${JSON.stringify(compatibilityFlags)}`].join('\n'));
  await wranglerBuild(['--config', config], join(outdir, 'out'));
  return join(outdir, 'out', 'workers-relay-entry.js');
}

/** Runs `wrangler deploy --dry-run --outdir outdir` with `args` from the repository's root. */
async function wranglerBuild(args: string[], outdir: string): Promise<void> {
  const child = spawn('npx', ['wrangler', 'deploy', '--dry-run', '--outdir', outdir, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', HOME: outdir, WRANGLER_SEND_METRICS: 'false', npm_config_update_notifier: 'false' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`wrangler deploy --dry-run exited with ${code}:\n${output}`);
}

/** The `compatibility_date` and flags of `wrangler.toml`, so workerd runs the Worker as deployed. */
function compatibility(): { compatibilityDate: string; compatibilityFlags: string[] } {
  const toml = readFileSync(join(root, 'wrangler.toml'), 'utf8');
  const date = /^compatibility_date\s*=\s*"([^"]+)"/m.exec(toml)?.[1];
  const flags = /^compatibility_flags\s*=\s*\[([^\]]*)\]/m.exec(toml)?.[1];
  if (!date) throw new Error('wrangler.toml has no compatibility_date');
  return { compatibilityDate: date, compatibilityFlags: [...(flags ?? '').matchAll(/"([^"]+)"/g)].map((match) => match[1]!) };
}

/**
 * Starts workerd with the built Worker (`entry` from {@link buildWorker}) and `bindings` as its
 * variables; the objects' SQLite databases go to `storageFolder` (on the disk the Node gateway's
 * home is on, so both pay the same disk).
 */
export async function startLocalWorker(entry: string, bindings: Record<string, string>, storageFolder: string): Promise<LocalWorker> {
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-65_536);
  };
  const { mf, origin, pid } = await startWorkerd(entry, {
    name: 'operator',
    durableObjects: {
      CONVERSATIONS: { className: 'ConversationObject', useSQLite: true },
      ACCESS: { className: 'AccessObject', useSQLite: true },
    },
    durableObjectsPersist: storageFolder,
    bindings,
    handleRuntimeStdio(stdout: Readable, stderr: Readable) {
      stdout.on('data', keep);
      stderr.on('data', keep);
    },
  });
  const json = async <T>(path: string, method = 'GET'): Promise<T> => {
    const response = await fetch(`${origin}${path}`, { method });
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${await response.text()}`);
    return (await response.json()) as T;
  };
  return {
    origin,
    pid,
    footprint: (sessionKey) => json<Footprint>(`/__bench/footprint?session=${encodeURIComponent(sessionKey)}`),
    counts: () => json<Record<string, ClassCounts>>('/__bench/counts'),
    resetCounts: async () => void (await json('/__bench/counts', 'POST')),
    output: () => output,
    close: () => mf.dispose(),
  };
}

/** The relay of {@link buildRelay} running in local workerd. */
export interface LocalRelay {
  readonly origin: string;
  readonly pid: number;
  close(): Promise<void>;
}

/** Starts the relay built by {@link buildRelay} (`entry`) in workerd with `bindings` as its variables. */
export async function startLocalRelay(entry: string, bindings: Record<string, string>): Promise<LocalRelay> {
  const { mf, origin, pid } = await startWorkerd(entry, { name: 'operator-bench-relay', bindings });
  return { origin, pid, close: () => mf.dispose() };
}

/**
 * Miniflare running the bundle at `entry` with `options`, as deployed (the compatibility of
 * `wrangler.toml`), on a free local port, offline; with the workerd process it started.
 */
async function startWorkerd(
  entry: string,
  options: {
    name: string;
    bindings: Record<string, string>;
    durableObjects?: Record<string, { className: string; useSQLite: boolean }>;
    durableObjectsPersist?: string;
    handleRuntimeStdio?(stdout: Readable, stderr: Readable): void;
  },
): Promise<{ mf: Miniflare; origin: string; pid: number }> {
  const before = new Set(workerdChildren());
  const mf = new Miniflare({
    ...options,
    modules: true,
    scriptPath: entry,
    modulesRoot: join(entry, '..'),
    // The bundle is an ES module named `.js` (Miniflare would read `.js` as CommonJS).
    modulesRules: [{ type: 'ESModule', include: ['**/*.js', '**/*.mjs'] }],
    ...compatibility(),
    host: '127.0.0.1',
    port: 0,
    // No fetch of the `Request.cf` object from workers.cloudflare.com: the bench runs offline.
    cf: false,
  });
  const url = await mf.ready;
  const pid = workerdChildren().find((candidate) => !before.has(candidate));
  if (pid === undefined) throw new Error("workerd started, but its process was not found among this process's children");
  return { mf, origin: url.origin, pid };
}

/** Pids of this process's children that are workerd. */
function workerdChildren(): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (command === 'workerd' && parent === process.pid) found.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return found;
}

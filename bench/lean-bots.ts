/**
 * The bots the lean benchmark compares, started the same way: a process of their own, pointed
 * at a fake Telegram server (long polling) and the fake model. operator is
 * `node bin/operator.js start` (the compiled dist/ when it is fresh) with a new OPERATOR_HOME;
 * the bare bot is `node bench/out/lean-bare-bot.mjs`, `lean-bare-bot.ts` compiled by esbuild
 * (see {@link compileBareBot}); the replaying bare bot is the same file sending operator's own
 * model request, captured by {@link captureOperatorRequest}.
 */
import { build } from 'esbuild';
import { spawn } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { compiledIsFresh, freePort, root, spawnGateway } from './gateway-process.ts';
import { benchHome } from './lib.ts';
import { gatewayEnv } from './telegram-updates.ts';

/** Which bot: `replay` is the bare bot sending operator's captured model request. */
export type BotKind = 'bare' | 'replay' | 'operator';

/** A bot process being measured. */
export interface LeanBot {
  readonly kind: BotKind;
  readonly pid: number;
  /** `process.hrtime.bigint()` right before the spawn. */
  readonly spawnedAt: bigint;
  /** Whether it runs compiled JavaScript: operator's dist/ was fresh as it started (bin/operator.js runs the sources through tsx otherwise). */
  readonly compiled: boolean;
  /** Everything it wrote (stdout and stderr), for errors. */
  output(): string;
  /** SIGTERM, then the exit (SIGKILL after 10 s); removes what it left on disk. */
  stop(): Promise<void>;
}

/** Where the two fakes are. */
export interface LeanFakes {
  model: { anthropicBaseURL: string };
  telegram: { apiRoot: string; token: string };
}

const bareSource = join(root, 'bench', 'lean-bare-bot.ts');
const bareCompiled = join(root, 'bench', 'out', 'lean-bare-bot.mjs');
/** Where {@link captureOperatorRequest} writes the request the replaying bare bot sends. */
export const replayBodyFile = join(root, 'bench', 'out', 'lean-operator-request.json');

/** How the bare bot is built: `bundle` (the default) or `plain` (`OPERATOR_BENCH_LEAN_BARE`). */
export function bareBuild(): 'bundle' | 'plain' {
  return process.env.OPERATOR_BENCH_LEAN_BARE === 'plain' ? 'plain' : 'bundle';
}

/**
 * Compiles the bare bot to JavaScript at bench/out/lean-bare-bot.mjs. `bundle`: one ES module
 * with grammY and the Anthropic SDK inside, as bin/build.js (with rolldown) bundles them into
 * operator's dist/, so both bots load their SDKs the same way and the difference is operator's
 * own code.
 * `plain`: only translated, its packages loaded file by file from node_modules (as a bot run
 * with `node bot.js` loads them; some 300 ms more from spawn to the first reply in the runs
 * tried here, which flatters operator's start-up ratio).
 */
export async function compileBareBot(): Promise<void> {
  const bundle = bareBuild() === 'bundle';
  await build({
    entryPoints: [bareSource],
    outfile: bareCompiled,
    bundle,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    logLevel: 'warning',
    // CommonJS bundled into an ES module still calls require() for Node's own modules.
    ...(bundle ? { banner: { js: "import { createRequire as __bareRequire } from 'node:module'; const require = __bareRequire(import.meta.url);" } } : {}),
  });
}

/**
 * Writes operator's model request to {@link replayBodyFile}: `body` is the last request the fake
 * model received, taken right after operator answered (no other bot was talking). Checked to be
 * a request with tools, so a bare bot's small request is never replayed by mistake. Returns its
 * size in bytes and its number of tools.
 */
export function captureOperatorRequest(body: string): { bytes: number; tools: number } {
  const request = JSON.parse(body) as { tools?: unknown[]; messages?: unknown[] };
  if (!request.tools?.length || !request.messages?.length) throw new Error(`lean: the last model request is not operator's (no tools or messages): ${body.slice(0, 200)}`);
  writeFileSync(replayBodyFile, body);
  return { bytes: Buffer.byteLength(body), tools: request.tools.length };
}

/**
 * Homes of stopped operator processes, removed by {@link removeStoppedHomes} once the run is
 * over. Deleting one while the run goes on (a burst's home holds thousands of files) made the
 * next files on that ext4 disk dear to create: its inode allocator steps over recently deleted
 * inodes one by one (bench/RESULTS.md, "2026-11-30, evening"), and the version measured second
 * paid for it in every new chat.
 */
const stoppedHomes: string[] = [];

/** Removes the homes of every operator process stopped so far. */
export function removeStoppedHomes(): void {
  for (const home of stoppedHomes.splice(0)) rmSync(home, { recursive: true, force: true });
}

/**
 * Starts a bot of `kind` against `fakes` (`replay` once {@link captureOperatorRequest} has run),
 * run by the Node.js binary `node`.
 */
export async function spawnBot(kind: BotKind, fakes: LeanFakes, node: string = process.execPath): Promise<LeanBot> {
  return kind === 'operator' ? spawnOperator(fakes, node) : spawnBare(kind, fakes, node);
}

async function spawnOperator(fakes: LeanFakes, node: string): Promise<LeanBot> {
  const home = benchHome('operator-bench-lean-');
  const port = await freePort();
  const env = gatewayEnv(home, port, fakes);
  // No webhook: the gateway long-polls, as the bare bot does.
  delete env.TELEGRAM_WEBHOOK_URL;
  delete env.TELEGRAM_WEBHOOK_SECRET;
  // `OPERATOR_BENCH_LEAN_ENV` adds variables to operator's environment, for comparisons within
  // operator (e.g. `OPERATOR_STORE=memory`: what the filesystem store costs a turn).
  for (const pair of process.env.OPERATOR_BENCH_LEAN_ENV?.split(' ').filter(Boolean) ?? []) {
    const at = pair.indexOf('=');
    if (at > 0) env[pair.slice(0, at)] = pair.slice(at + 1);
  }
  // bin/operator.js makes the same check as it starts: sources edited meanwhile mean tsx.
  const compiled = compiledIsFresh();
  // `OPERATOR_BENCH_LEAN_NODE_ARGS` adds node options to operator's process (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const nodeArgs = process.env.OPERATOR_BENCH_LEAN_NODE_ARGS?.split(' ').filter(Boolean);
  const gateway = spawnGateway({ port, env, nodeArgs, node });
  return {
    kind: 'operator',
    compiled,
    pid: gateway.pid,
    spawnedAt: gateway.spawnedAt,
    output: gateway.output,
    async stop() {
      await gateway.stop();
      stoppedHomes.push(home);
    },
  };
}

async function spawnBare(kind: 'bare' | 'replay', fakes: LeanFakes, node: string): Promise<LeanBot> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', TELEGRAM_BOT_TOKEN: fakes.telegram.token, TELEGRAM_API_ROOT: fakes.telegram.apiRoot, ANTHROPIC_BASE_URL: fakes.model.anthropicBaseURL };
  if (kind === 'replay') env.LEAN_MODEL_BODY_FILE = replayBodyFile;
  // `OPERATOR_BENCH_LEAN_BARE_NODE_ARGS`: node options for the bare bot's process, as above for operator's.
  const nodeArgs = process.env.OPERATOR_BENCH_LEAN_BARE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const spawnedAt = process.hrtime.bigint();
  const child = spawn(node, [...nodeArgs, bareCompiled], {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    kind,
    compiled: true,
    pid: child.pid!,
    spawnedAt,
    output: () => output,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

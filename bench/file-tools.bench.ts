/**
 * The file tools in the seat's sandbox: what a call costs through the conversation's file worker
 * (bubblewrap, a warm worker) beyond the same work done in this process, as the tools did it
 * before they moved (the worker's own functions, imported here), timed in turn so load from
 * elsewhere hits both alike. Also: a worker's start (a conversation's first file call), and
 * `/healthz` of a server in this process while a worker is stuck in a pattern that backtracks for
 * ever, against the same requests with nothing running.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createGrepTool } from '../src/tools/builtin/grep.ts';
import { createReadFileTool } from '../src/tools/builtin/read-file.ts';
import { FileAccess } from '../src/tools/files/file-access.ts';
import { readOp } from '../src/tools/files/worker/file-ops.js';
import { grepOp } from '../src/tools/files/worker/search-ops.js';
import { createSandbox } from '../src/tools/sandbox/create-sandbox.ts';
import { defaultSandboxSettings } from '../src/tools/sandbox/sandbox.ts';
import type { ToolContext } from '../src/tools/tool.ts';
import { elapsedMs, median, quantile, type BenchResult } from './lib.ts';

const RUNS = 60;
const WARMUP = 5;
const FILES = 10_000;
const STARTS = 20;
const HEALTH_REQUESTS = 300;

const picomatch = createRequire(import.meta.url)('picomatch') as unknown;

export default async function run(): Promise<BenchResult[]> {
  const root = mkdtempSync(join(tmpdir(), 'operator-bench-files-'));
  const home = join(root, 'home');
  const workspace = join(root, 'workspace');
  mkdirSync(join(home, 'state'), { recursive: true });
  try {
    const big = join(workspace, 'big.txt');
    mkdirSync(workspace, { recursive: true });
    writeFileSync(big, Array.from({ length: 2_000 }, (_, index) => `line ${index} ${'x'.repeat(44)}`).join('\n'));
    for (let folder = 0; folder < 100; folder++) {
      mkdirSync(join(workspace, 'tree', `d${folder}`), { recursive: true });
      for (let file = 0; file < FILES / 100; file++) writeFileSync(join(workspace, 'tree', `d${folder}`, `f${file}.txt`), `file ${folder}/${file}\nsome text here\n`);
    }
    writeFileSync(join(workspace, 'tree', 'd50', 'needle.txt'), 'the needle is here\n');

    const env = { PATH: process.env.PATH, LANG: 'C.UTF-8' };
    const sandbox = createSandbox(defaultSandboxSettings, { hidden: [home], env });
    if (sandbox.kind !== 'bubblewrap') throw new Error(`the file tools bench needs bubblewrap: ${sandbox.describe()}`);
    const files = new FileAccess({ sandbox, hidden: [join(home, 'state')] });
    const read = createReadFileTool({ files });
    const grep = createGrepTool({ files });
    const context: ToolContext = {
      signal: new AbortController().signal,
      cwd: workspace,
      toolCallId: 'bench',
      turn: { sessionKey: 'telegram:group:1', platform: 'telegram', senderId: '7', admin: false, scheduled: false, tools: new Set(['read_file', 'grep']), workspace: { cwd: workspace, roots: [workspace], hidden: [home] } },
    };
    const timed = async (fn: () => Promise<unknown>) => {
      const start = process.hrtime.bigint();
      await fn();
      return elapsedMs(start);
    };
    const grepRequest = { root: workspace, cwd: workspace, pattern: 'needle', maxResults: 100, maxFileBytes: 10 * 1024 * 1024, skipFolders: ['node_modules', '.git'] };

    const readHere: number[] = [];
    const readWorker: number[] = [];
    const grepHere: number[] = [];
    const grepWorker: number[] = [];
    for (let i = 0; i < WARMUP + RUNS; i++) {
      const a = await timed(() => readOp({ path: big, maxImageBytes: 5 * 1024 * 1024, maxTextBytes: 32 * 1024 * 1024 }));
      const b = await timed(() => read.execute({ path: 'big.txt' }, context));
      const c = await timed(() => grepOp(grepRequest, { picomatch }));
      const d = await timed(() => grep.execute({ pattern: 'needle' }, context));
      if (i < WARMUP) continue;
      readHere.push(a);
      readWorker.push(b);
      grepHere.push(c);
      grepWorker.push(d);
    }

    // A conversation's first call starts its worker: a new conversation key each time.
    const starts: number[] = [];
    for (let i = 0; i < STARTS; i++) {
      const fresh = { ...context, turn: { ...context.turn!, sessionKey: `telegram:group:start-${i}` } };
      starts.push(await timed(() => read.execute({ path: 'big.txt' }, fresh)));
    }

    const health = await healthDuringPattern(workspace, sandbox);
    files.closeAll();

    const readAdded = median(readWorker) - median(readHere);
    const grepAdded = median(grepWorker) - median(grepHere);
    return [
      { name: 'read_file of 100 KB in this process (floor, median)', value: median(readHere), unit: 'ms' },
      { name: 'read_file of 100 KB through the sandboxed worker (median)', value: median(readWorker), unit: 'ms' },
      { name: 'read_file: the sandbox adds (median)', value: readAdded, unit: 'ms', target: '<= 15 ms', pass: readAdded <= 15 },
      { name: `grep over ${FILES.toLocaleString('en-US')} files in this process (floor, median)`, value: median(grepHere), unit: 'ms' },
      { name: `grep over ${FILES.toLocaleString('en-US')} files through the sandboxed worker (median)`, value: median(grepWorker), unit: 'ms' },
      { name: 'grep: the sandbox adds (median)', value: grepAdded, unit: 'ms', target: '<= 15 ms', pass: grepAdded <= 15 },
      { name: "a conversation's first file call, starting its worker (median)", value: median(starts), unit: 'ms' },
      { name: "a conversation's first file call, starting its worker (p90)", value: quantile(starts, 0.9), unit: 'ms' },
      { name: '/healthz with nothing running (floor, p99)', value: health.idleP99, unit: 'ms' },
      { name: '/healthz while a worker runs (a+)+b (p99)', value: health.stuckP99, unit: 'ms', target: '<= 100 ms', pass: health.stuckP99 <= 100 },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * p99 of `/healthz` answered by a plain server in this process, first with nothing else running,
 * then while a file worker searches a line of 5,000 `a`s for `(a+)+b` (which never finishes).
 */
async function healthDuringPattern(workspace: string, sandbox: ReturnType<typeof createSandbox>): Promise<{ idleP99: number; stuckP99: number }> {
  writeFileSync(join(workspace, 'aaa.txt'), `${'a'.repeat(5_000)}\n`);
  const server: Server = createServer((_request, response) => response.end('ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/healthz`;
  const ask = async () => {
    const samples: number[] = [];
    for (let i = 0; i < HEALTH_REQUESTS; i++) {
      const start = process.hrtime.bigint();
      await (await fetch(url)).text();
      samples.push(elapsedMs(start));
    }
    return samples;
  };
  try {
    const idle = await ask();
    const files = new FileAccess({ sandbox, timeoutMs: 600_000 });
    const grep = createGrepTool({ files });
    const controller = new AbortController();
    const search = grep.execute({ pattern: '(a+)+b', path: 'aaa.txt' }, { signal: controller.signal, cwd: workspace, toolCallId: 'stuck' }).catch(() => undefined);
    // Let the worker start and take the pattern before the requests begin.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stuck = await ask();
    controller.abort();
    await search;
    files.closeAll();
    return { idleP99: quantile(idle, 0.99), stuckP99: quantile(stuck, 0.99) };
  } finally {
    server.close();
  }
}

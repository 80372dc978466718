/**
 * The gateway under load: the real process (`node bin/operator.js start`), Telegram by webhook
 * against the fake Bot API server, the real Anthropic SDK against the fake model answering at
 * once. The gateway, the fake model and the fake Telegram each run in their own process, as they
 * would in production (the machine has two cores; the fakes' CPU work stays out of this process,
 * which only posts webhooks and reads clocks and /proc; the fake Telegram stamps each reply's
 * arrival with the machine-wide monotonic clock). Four figures (issue 4, "Benchmarks"):
 *
 * 1. Throughput: 1,000 private chats each post one message at once (64 webhook POSTs in flight);
 *    the wall time until every chat has its final reply, as turns per second. Then three waves on
 *    the same, now warm, conversations (the JIT and the heap settle), of which the last counts. CPU per turn of each process shows where it went. The
 *    same burst through a bare relay on the same SDKs (`gateway-floor-relay.ts`) is the floor:
 *    what this machine allows the SDKs and the fakes; the waves are also given as shares of it.
 * 2. Overhead per turn: 1,000 sequential turns rotating over 50 warm chats, each from the webhook
 *    POST to the final reply arriving at the fake Telegram, against a floor measured after every
 *    turn: a bare HTTP round trip to the gateway (`GET /healthz`), the bare SDK call replaying the
 *    request that turn sent to the fake model, and a bare `sendMessage` to the fake Telegram. The
 *    targets apply to the turn's quantile minus the floor's.
 * 3. Memory: the gateway's resident memory with 1,001 idle conversations (four turns each) minus
 *    with one, per conversation, once it is idle and its kept-alive connections have closed, read
 *    right after the burst and once V8's memory reducer has given back what the burst grew (it
 *    runs by itself after some idle seconds; no GC is forced); then the same after a full GC, and the V8 heap, read through a probe loaded into the process
 *    (`gateway-heap-probe.mjs`, answering SIGUSR2 on stderr; the gateway has no debug endpoint).
 * 4. Start-up: spawn to the first 200 from /healthz, median of five, against spawning `node -e 0`.
 *    Every figure notes whether bin/operator.js ran the compiled dist/ (`npm run build` first).
 *
 * `OPERATOR_BENCH_GATEWAY_NODE_ARGS` adds node options to the measured gateway (e.g.
 * `--cpu-prof --cpu-prof-dir=/tmp/prof` to profile it). `OPERATOR_BENCH_GATEWAY_PARTS` picks
 * figures, comma-separated, of `throughput`, `memory`, `overhead`, `startup` (default all; memory
 * is read around the throughput waves, so it runs them too).
 */
import Anthropic from '@anthropic-ai/sdk';
import { Api, type ApiClientOptions } from 'grammy/web';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayLastRequest, startFakeModelProcess } from './fake-model-process.ts';
import { compiledIsFresh, cpuMs, createHttpClient, freePort, machineCpuMs, ownCpuMs, residentKb, root, spawnGateway, timeToHealthy } from './gateway-process.ts';
import type { GatewayProcess } from './gateway-process.ts';
import { startFakeTelegramProcess } from './gateway-telegram-process.ts';
import type { FakeTelegramProcess } from './gateway-telegram-process.ts';
import { gatewayEnv, REPLY, SECRET, textUpdate, WEBHOOK_PATH } from './telegram-updates.ts';
import { benchHome, benchHomeRoot, elapsedMs, fileCreateMs, median, quantile, type BenchResult } from './lib.ts';
import { keepAliveFetch, loadKeepAliveFetch } from '../src/core/keep-alive-fetch.ts';

const CONVERSATIONS = 1_000;
/** Webhook POSTs in flight at once (Telegram's own default `max_connections` is 40). */
const CONCURRENCY = 64;
const WAVE_TIMEOUT_MS = 60_000;
/** Waves on the warm conversations after the first; the figures are the last one's. */
const WARM_WAVES = 3;
const SEQUENTIAL_TURNS = 1_000;
const SEQUENTIAL_WARMUP = 50;
/** Sequential turns rotate over this many chats, so no conversation grows past ~20 turns. */
const SEQUENTIAL_CHATS = 50;
const STARTUP_RUNS = 5;
/** The figures to measure (`OPERATOR_BENCH_GATEWAY_PARTS`). */
const parts = new Set((process.env.OPERATOR_BENCH_GATEWAY_PARTS ?? 'throughput,memory,overhead,startup').split(',').map((part) => part.trim()));

/** Chat ids: the warm-up conversation, the sequential ones, the floor's, the 1,000 of the waves. */
const warmChat = 1_000;
const sequentialChat = (i: number) => 2_000 + (i % SEQUENTIAL_CHATS);
const floorChat = 3_000;
const waveChats = Array.from({ length: CONVERSATIONS }, (_, i) => 10_000_000 + i);

export default async function run(): Promise<BenchResult[]> {
  const mode = compiledIsFresh() ? 'compiled dist/' : 'sources through tsx: run `npm run build` first for the figures that count';
  const model = await startFakeModelProcess({ text: REPLY, usage: { input: 1200, output: 5, cacheRead: 1000 } });
  const telegram = await startFakeTelegramProcess(REPLY);
  const home = benchHome('operator-bench-gateway-');
  const env = (gatewayHome: string, port: number): Record<string, string> => gatewayEnv(gatewayHome, port, { model, telegram });
  const results: BenchResult[] = [
    {
      name: "creating one file in the gateway's home folder, median of 200 (the disk's own cost, for context)",
      value: fileCreateMs(benchHomeRoot()),
      unit: 'ms',
      note: `home under ${benchHomeRoot()} (OPERATOR_BENCH_HOME)`,
    },
  ];
  try {
    const port = await freePort();
    const nodeArgs = process.env.OPERATOR_BENCH_GATEWAY_NODE_ARGS?.split(' ').filter(Boolean);
    const gateway = spawnGateway({ port, env: env(home, port), nodeArgs, heapProbe: true });
    let client = createHttpClient(gateway.url, CONCURRENCY);
    try {
      await gateway.ready();
      const post = (body: string, secret = SECRET) =>
        client.request('POST', WEBHOOK_PATH, { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret }, body);

      // One warm conversation (every module loaded, the profile's resources read), then the baseline.
      telegram.reset();
      await post(textUpdate(warmChat, 'hello'));
      await telegram.replies([warmChat], 10_000);
      let rssBefore = 0;
      let heapBefore: Awaited<ReturnType<GatewayProcess['memory']>> | undefined;
      let collectedBefore = 0;
      if (parts.has('memory') || parts.has('throughput')) {
        client.close();
        const memory = parts.has('memory');
        await settle(gateway.pid, { connections: true });
        if (memory) {
          rssBefore = (await idleResident(gateway.pid)).idle;
          heapBefore = await gateway.memory();
          collectedBefore = await residentAfterRelease(gateway.pid);
        }

        client = createHttpClient(gateway.url, CONCURRENCY);
        const waves: BenchResult[] = [];
        waves.push(...(await measureWave('first', gateway, telegram, post)));
        // The gateway's JIT and heap settle over a few waves; the last of three warm ones counts.
        for (let warm = 0; warm < WARM_WAVES - 1; warm++) await measureWave('warm', gateway, telegram, post);
        waves.push(...(await measureWave('warm', gateway, telegram, post)));
        const floor = await measureFloorWave(model, telegram);
        results.push(...waves, ...relativeToFloor(waves, floor));

        client.close();
        client = createHttpClient(gateway.url, CONCURRENCY);
      }
      if (parts.has('memory') && heapBefore) {
        await settle(gateway.pid, { connections: true });
        const { first: rssAfterBurst, idle: rssAfter, seconds: idleSeconds } = await idleResident(gateway.pid);
        const heapAfter = await gateway.memory();
        const collectedAfter = await residentAfterRelease(gateway.pid);
        const perConversation = (rssAfter - rssBefore) / CONVERSATIONS;
        const mb = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MB`;
        const kb = (bytes: number) => bytes / 1024 / CONVERSATIONS;
        const perCollected = (collectedAfter - collectedBefore) / CONVERSATIONS;
        results.push(
          {
            name: 'gateway RSS after start-up with one warm conversation',
            value: rssBefore / 1024,
            unit: 'MB',
            note: `after a full GC: V8 heap ${mb(heapBefore.heapUsed)} used of ${mb(heapBefore.physicalHeap)} resident, RSS ${(collectedBefore / 1024).toFixed(1)} MB a second later`,
          },
          {
            name: `gateway RSS with ${CONVERSATIONS + 1} idle conversations`,
            value: rssAfter / 1024,
            unit: 'MB',
            note: `after a full GC: V8 heap ${mb(heapAfter.heapUsed)} used of ${mb(heapAfter.physicalHeap)} resident, RSS ${(collectedAfter / 1024).toFixed(1)} MB a second later`,
          },
          {
            name: 'resident memory per idle conversation right after the burst (RSS difference / 1,000)',
            value: (rssAfterBurst - rssBefore) / CONVERSATIONS,
            unit: 'KB',
            note: 'the young generation and the garbage of 4,000 turns still resident',
          },
          {
            name: 'resident memory per idle conversation (RSS difference / 1,000)',
            value: perConversation,
            unit: 'KB',
            target: '<= 64 KB',
            pass: perConversation <= 64,
            note: `the gateway idle for ${idleSeconds} s, its kept-alive connections closed, no forced GC (V8's own memory reducer ran)`,
          },
          {
            name: 'resident memory per idle conversation after a full GC (RSS a second after it, difference / 1,000)',
            value: perCollected,
            unit: 'KB',
            note: 'what stays once V8 has collected and returned the pages the burst of 1,000 turns grew',
          },
          {
            name: 'V8 heap per idle conversation after a full GC (heapUsed difference / 1,000)',
            value: kb(heapAfter.heapUsed - heapBefore.heapUsed),
            unit: 'KB',
            note: `resident V8 heap pages ${kb(heapAfter.physicalHeap - heapBefore.physicalHeap).toFixed(1)} KB per conversation, external memory ${kb(heapAfter.external - heapBefore.external).toFixed(1)} KB`,
          },
        );
      }
      if (parts.has('overhead')) results.push(...(await measureOverhead(gateway, telegram, model, client, post)));
    } finally {
      client.close();
      await gateway.stop();
    }
    if (parts.has('startup')) results.push(...(await measureStartup(env)));
  } finally {
    await telegram.close();
    await model.close();
    rmSync(home, { recursive: true, force: true });
  }
  for (const result of results) if (result.pass !== undefined) result.note = result.note ? `${result.note}; ${mode}` : mode;
  return results;
}

/** 1,000 conversations at once: each chat posts one message; wall time until every chat is answered. */
async function measureWave(
  wave: 'first' | 'warm',
  gateway: GatewayProcess,
  telegram: FakeTelegramProcess,
  post: (body: string) => Promise<number>,
): Promise<BenchResult[]> {
  const bodies = waveChats.map((chat) => textUpdate(chat, `message of the ${wave} wave`));
  telegram.reset();
  const before = cpuSnapshot(gateway, telegram);
  const start = process.hrtime.bigint();
  const answered = telegram.replies(waveChats, WAVE_TIMEOUT_MS);
  let next = 0;
  let refused = 0;
  const poster = async () => {
    while (next < bodies.length) {
      const status = await post(bodies[next++]!);
      if (status !== 200) refused++;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, poster));
  const postedMs = elapsedMs(start);
  await answered;
  const wallMs = elapsedMs(start);
  const cpu = cpuSnapshot(gateway, telegram, before);
  const perTurn = (ms: number) => (ms / CONVERSATIONS).toFixed(2);
  const unanswered = await telegram.unanswered(waveChats);
  const latencies = waveChats.map((chat) => Number(telegram.arrived.get(chat)! - start) / 1e6);
  const turnsPerSecond = CONVERSATIONS / (wallMs / 1000);
  const label = wave === 'first' ? 'first wave (1,000 new conversations)' : `warm wave (the same 1,000, wave ${WARM_WAVES + 1})`;
  return [
    { name: `${label}: wall time until every chat has its final reply`, value: wallMs, unit: 'ms', note: `all ${CONVERSATIONS} webhooks accepted after ${postedMs.toFixed(0)} ms, ${refused} refused, ${unanswered} chats without the reply; reply latency p50 ${median(latencies).toFixed(0)} ms, p99 ${quantile(latencies, 0.99).toFixed(0)} ms` },
    { name: `${label}: turns per second`, value: turnsPerSecond, unit: 'turns/s', target: '>= 500', pass: turnsPerSecond >= 500 && refused === 0 && unanswered === 0 },
    {
      name: `${label}: gateway CPU per turn (all its threads)`,
      value: cpu.gateway / CONVERSATIONS,
      unit: 'ms',
      note: `per turn also: fake Telegram ${perTurn(cpu.telegram)} ms, this process ${perTurn(cpu.self)} ms, the fake model ${perTurn(cpu.own - cpu.gateway - cpu.telegram - cpu.self)} ms, processes not ours ${perTurn(cpu.others)} ms; the machine was busy ${perTurn(cpu.busy)} of ${perTurn(cpu.total)} ms (2 cores)`,
    },
  ];
}

/**
 * The same 1,000 messages at once through the floor relay (`gateway-floor-relay.ts`): webhook in,
 * the gateway's own model request replayed through the SDK, `sendMessage` out, nothing else.
 * Its turns per second are what this machine allows the SDKs and the fakes; the gateway's are
 * reported as a share of them.
 */
async function measureFloorWave(model: { anthropicBaseURL: string; lastBody(): Promise<string> }, telegram: FakeTelegramProcess): Promise<BenchResult> {
  const folder = mkdtempSync(join(tmpdir(), 'operator-bench-floor-'));
  const bodyFile = join(folder, 'body.json');
  writeFileSync(bodyFile, await model.lastBody());
  const port = await freePort();
  const relay = spawn(process.execPath, [join(root, 'bin', 'run-ts.js'), join(root, 'bench', 'gateway-floor-relay.ts')], {
    env: { PATH: process.env.PATH, PORT: String(port), SECRET, ANTHROPIC_BASE_URL: model.anthropicBaseURL, TELEGRAM_API_ROOT: telegram.apiRoot, TELEGRAM_BOT_TOKEN: telegram.token, MODEL_BODY_FILE: bodyFile },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const client = createHttpClient(`http://127.0.0.1:${port}`, CONCURRENCY);
  try {
    await new Promise<void>((resolve, reject) => {
      relay.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('ready') && resolve());
      relay.once('exit', (code) => reject(new Error(`floor relay exited with ${code}`)));
    });
    const chats = waveChats.map((chat) => chat + 10_000_000);
    // One round to warm the relay (modules, connections), then the measured one.
    let turnsPerSecond = 0;
    let relayCpuPerTurn = 0;
    for (let round = 0; round < 2; round++) {
      const bodies = chats.map((chat) => textUpdate(chat, `floor message ${round}`));
      telegram.reset();
      const start = process.hrtime.bigint();
      const answered = telegram.replies(chats, WAVE_TIMEOUT_MS);
      let next = 0;
      const poster = async () => {
        while (next < bodies.length) {
          const status = await client.request('POST', WEBHOOK_PATH, { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': SECRET }, bodies[next++]!);
          if (status !== 200) throw new Error(`floor relay answered ${status}`);
        }
      };
      const cpuBefore = cpuMs(relay.pid!);
      await Promise.all(Array.from({ length: CONCURRENCY }, poster));
      await answered;
      turnsPerSecond = CONVERSATIONS / (elapsedMs(start) / 1000);
      relayCpuPerTurn = (cpuMs(relay.pid!) - cpuBefore) / CONVERSATIONS;
    }
    return {
      name: 'floor: a bare relay on the same SDKs (webhook in, the model request replayed, sendMessage out), 1,000 at once: turns per second',
      value: turnsPerSecond,
      unit: 'turns/s',
      note: `what this machine allows the SDKs and the fakes, with no dedupe, session, ledger or queue; relay CPU per turn ${relayCpuPerTurn.toFixed(2)} ms (the second of two rounds)`,
    };
  } finally {
    client.close();
    relay.kill('SIGTERM');
    rmSync(folder, { recursive: true, force: true });
  }
}

/** The floor, then each wave's turns per second as a share of it. */
function relativeToFloor(waves: BenchResult[], floor: BenchResult): BenchResult[] {
  const shares = waves
    .filter((result) => result.unit === 'turns/s')
    .map((result) => ({ name: `${result.name.replace(': turns per second', '')}: turns per second as a share of the floor`, value: (100 * result.value) / floor.value, unit: '%' }));
  return [floor, ...shares];
}

interface CpuSnapshot {
  gateway: number;
  telegram: number;
  self: number;
  /** This process and all it started. */
  own: number;
  busy: number;
  total: number;
  /** Busy time of processes that are not ours (only in differences). */
  others: number;
}

/** CPU time (ms) used so far, or since `since`. */
function cpuSnapshot(gateway: GatewayProcess, telegram: FakeTelegramProcess, since?: CpuSnapshot): CpuSnapshot {
  const usage = process.cpuUsage();
  const machine = machineCpuMs();
  const now = { gateway: cpuMs(gateway.pid), telegram: cpuMs(telegram.pid), self: (usage.user + usage.system) / 1000, own: ownCpuMs(), busy: machine.busy, total: machine.total, others: 0 };
  if (!since) return now;
  const diff = { ...now };
  for (const key of Object.keys(now) as (keyof CpuSnapshot)[]) diff[key] = now[key] - since[key];
  diff.others = Math.max(0, diff.busy - diff.own);
  return diff;
}

/** Sequential turns, each followed by the floor's three bare round trips. */
async function measureOverhead(
  gateway: GatewayProcess,
  telegram: FakeTelegramProcess,
  model: { anthropicBaseURL: string; lastBody(): Promise<string> },
  client: ReturnType<typeof createHttpClient>,
  post: (body: string, secret?: string) => Promise<number>,
): Promise<BenchResult[]> {
  // The same transport the providers use: the floor is the bare call as operator makes it.
  const sdk = new Anthropic({ apiKey: 'bench-key', baseURL: model.anthropicBaseURL, maxRetries: 0, fetch: await loadKeepAliveFetch().then(() => keepAliveFetch) });
  const api = new Api(telegram.token, { apiRoot: telegram.apiRoot, fetch: keepAliveFetch as unknown as ApiClientOptions['fetch'] });
  const turns: number[] = [];
  const health: number[] = [];
  const refusedPosts: number[] = [];
  const sdkCalls: number[] = [];
  const sends: number[] = [];
  const floors: number[] = [];
  const pairs: number[] = [];
  for (let i = 0; i < SEQUENTIAL_WARMUP + SEQUENTIAL_TURNS; i++) {
    const chat = sequentialChat(i);
    const body = textUpdate(chat, `question ${i}`);
    telegram.reset();
    const start = process.hrtime.bigint();
    const status = await post(body);
    if (status !== 200) throw new Error(`the webhook answered ${status}`);
    await telegram.replies([chat], 10_000);
    const turnMs = Number(telegram.arrived.get(chat)! - start) / 1e6;

    let t = process.hrtime.bigint();
    const healthStatus = await client.request('GET', '/healthz');
    const healthMs = elapsedMs(t);
    if (healthStatus !== 200) throw new Error(`/healthz answered ${healthStatus}`);

    t = process.hrtime.bigint();
    const refused = await post(body, 'wrong-secret');
    const refusedMs = elapsedMs(t);
    if (refused !== 401) throw new Error(`the webhook answered ${refused} to a wrong secret`);

    const sdkMs = await replayLastRequest(sdk, model);

    t = process.hrtime.bigint();
    await api.sendMessage(floorChat, REPLY, { parse_mode: 'HTML' });
    const sendMs = elapsedMs(t);

    if (i < SEQUENTIAL_WARMUP) continue;
    turns.push(turnMs);
    health.push(healthMs);
    refusedPosts.push(refusedMs);
    sdkCalls.push(sdkMs);
    sends.push(sendMs);
    floors.push(healthMs + sdkMs + sendMs);
    pairs.push(turnMs - healthMs - sdkMs - sendMs);
  }
  const p50 = median(turns) - median(floors);
  const p99 = quantile(turns, 0.99) - quantile(floors, 0.99);
  const both = (samples: number[]) => `p99 ${quantile(samples, 0.99).toFixed(2)} ms`;
  return [
    { name: 'floor: GET /healthz round trip, median', value: median(health), unit: 'ms', note: `${both(health)}; a webhook POST refused for its secret (401): median ${median(refusedPosts).toFixed(2)} ms, ${both(refusedPosts)}` },
    { name: 'floor: bare SDK round trip to the fake model, median', value: median(sdkCalls), unit: 'ms', note: both(sdkCalls) },
    { name: 'floor: bare sendMessage to the fake Telegram (grammy), median', value: median(sends), unit: 'ms', note: both(sends) },
    { name: 'floor: the three together, median', value: median(floors), unit: 'ms', note: both(floors) },
    { name: 'gateway turn, webhook POST to the final sendMessage at the fake, median', value: median(turns), unit: 'ms', note: `${both(turns)}; ${SEQUENTIAL_TURNS} turns in ${SEQUENTIAL_CHATS} chats after ${SEQUENTIAL_WARMUP} warm-up turns` },
    { name: 'gateway overhead per turn beyond the floor (p50)', value: p50, unit: 'ms', target: '<= 2 ms', pass: p50 <= 2 },
    { name: 'gateway overhead per turn beyond the floor (p99)', value: p99, unit: 'ms', target: '<= 10 ms', pass: p99 <= 10 },
    { name: 'per-turn difference turn - its own floor, median', value: median(pairs), unit: 'ms', note: `${both(pairs)} (sums the tails of four calls)` },
  ];
}

/** Spawn to the first 200 from /healthz (no browser, Telegram by webhook), fresh home each run. */
async function measureStartup(env: (home: string, port: number) => Record<string, string>): Promise<BenchResult[]> {
  const floor: number[] = [];
  const healthy: number[] = [];
  const ready: number[] = [];
  for (let i = 0; i < STARTUP_RUNS; i++) {
    floor.push(await timeBareNode());
    const home = benchHome('operator-bench-gateway-start-');
    const port = await freePort();
    const gateway = spawnGateway({ port, env: env(home, port) });
    try {
      healthy.push(await timeToHealthy(gateway));
      await gateway.ready();
      ready.push(elapsedMs(gateway.spawnedAt));
    } finally {
      await gateway.stop();
      rmSync(home, { recursive: true, force: true });
    }
  }
  const value = median(healthy);
  return [
    { name: 'bare `node -e 0` (floor), median of 5', value: median(floor), unit: 'ms' },
    { name: 'start-up: spawn to the first 200 from /healthz, median of 5', value, unit: 'ms', target: '<= 500 ms', pass: value <= 500, note: `runs ${healthy.map((ms) => ms.toFixed(0)).join(', ')} ms; ${(value - median(floor)).toFixed(0)} ms beyond the floor` },
    { name: 'start-up: spawn to the banner (Telegram webhook registered), median of 5', value: median(ready), unit: 'ms' },
  ];
}

/** RSS (KB) of the gateway a second after the heap probe's full GC, once V8 has had time to release freed pages. */
/**
 * The gateway's RSS once it is idle for good. V8 gives back the pages a burst grew by itself, but
 * only after some idle time (its memory reducer; about 35 s here): RSS is read every second until
 * it has fallen by a tenth and then held for 5 s, or for at most 60 s.
 */
async function idleResident(pid: number): Promise<{ first: number; idle: number; seconds: number }> {
  const first = residentKb(pid);
  let last = first;
  let stable = 0;
  for (let second = 1; second <= 60; second++) {
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const now = residentKb(pid);
    stable = Math.abs(now - last) <= last * 0.01 ? stable + 1 : 0;
    last = now;
    if (now <= first * 0.9 && stable >= 5) return { first, idle: now, seconds: second };
  }
  return { first, idle: last, seconds: 60 };
}

async function residentAfterRelease(pid: number): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  return residentKb(pid);
}

function timeBareNode(): Promise<number> {
  const start = process.hrtime.bigint();
  const child = spawn(process.execPath, ['-e', '0']);
  return new Promise((resolve) => child.on('exit', () => resolve(elapsedMs(start))));
}

/**
 * Waits until the gateway is idle: under 5% of a core over 200 ms (at most 5 s). With
 * `connections`, then also until its kept-alive connections have timed out (the fakes' and the
 * gateway's servers close idle ones after Node's default 5 s), so they are not counted as memory.
 */
async function settle(pid: number, options: { connections?: boolean } = {}): Promise<void> {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const deadline = Date.now() + 5_000;
  let before = cpuMs(pid);
  while (Date.now() < deadline) {
    await sleep(200);
    const now = cpuMs(pid);
    if (now - before <= 10) break;
    before = now;
  }
  if (options.connections) await sleep(6_000);
}

/**
 * operator on Cloudflare Workers (issue 20), in local workerd, beside the Node gateway in the
 * same run with the same fakes: the fake model and the fake Telegram each in a process of their
 * own (`fake-model-process.ts`, `gateway-telegram-process.ts`), the gateway spawned as
 * `gateway.bench.ts` spawns it (`gateway-process.ts`), and the Worker built as for deployment
 * and run by Miniflare in workerd with its Durable Objects (`workers-miniflare.ts`).
 *
 * 1. Overhead per turn (`workers-overhead.ts`): webhook POST to the reply at the fake Telegram,
 *    minus the floor of bare HTTP calls, p50 and p99, both bots interleaved turn by turn; the
 *    Worker's p50 target is <= 3 ms. Beside them, measured by their turns alone, the floor relay
 *    on Node, the same relay as a Worker in workerd (`workers-relay-entry.ts`) and the same Worker
 *    with its objects' databases in RAM: what operator's own code costs on each runtime, what
 *    workerd adds to the same calls, and what local SQLite's commits cost. With it, what the
 *    objects did per turn and what a conversation's object stores after ~21 turns: the inputs of
 *    the estimate in RESULTS.md.
 * 2. Throughput (`workers-throughput.ts`): 1,000 conversations at once through each, turns per
 *    second and time until all are answered, against the floor relay.
 *
 * `OPERATOR_BENCH_WORKERS_PARTS` picks figures, comma-separated, of `overhead` and `throughput`
 * (default both). `OPERATOR_BENCH_HOME` places the gateway's home and the objects' databases.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startFakeModelProcess, type FakeModelProcess } from './fake-model-process.ts';
import { compiledIsFresh, freePort, spawnGateway } from './gateway-process.ts';
import { startFakeTelegramProcess, type FakeTelegramProcess } from './gateway-telegram-process.ts';
import { benchHome, benchHomeRoot, fileCreateMs, type BenchResult } from './lib.ts';
import { startFloorRelay } from './workers-floor.ts';
import { buildRelay, buildWorker, startLocalRelay, startLocalWorker } from './workers-miniflare.ts';
import { measureOverhead, type StartReferences } from './workers-overhead.ts';
import { measureThroughput } from './workers-throughput.ts';
import { gatewayEnv } from './telegram-updates.ts';
import { REPLY, SECRET, wave, type Target } from './workers-turns.ts';

const parts = new Set((process.env.OPERATOR_BENCH_WORKERS_PARTS ?? 'overhead,throughput').split(',').map((part) => part.trim()));
const MODEL = 'claude-sonnet-4-6';
/** The first turn of each bot, before anything is measured (modules loaded, connections open). */
const warmChats = [1_000, 1_001];

/**
 * The references of the overhead part: the floor relay on Node and the same relay in workerd
 * (both replaying `modelBody`), and a second Worker from the same build with its objects'
 * databases in RAM (`/dev/shm`, where there is one).
 */
async function startReferences(modelBody: string, setup: { home: string; entry: string; bindings: Record<string, string>; model: FakeModelProcess; telegram: FakeTelegramProcess }): Promise<Awaited<ReturnType<StartReferences>>> {
  const { home, entry, bindings, model, telegram } = setup;
  const started: { close(): Promise<void> }[] = [];
  const close = async () => {
    for (const one of started.reverse()) await one.close();
    rmSync(ram, { recursive: true, force: true });
  };
  const ram = existsSync('/dev/shm') ? mkdtempSync(join('/dev/shm', 'operator-bench-workers-')) : '';
  try {
    const nodeRelay = await startFloorRelay(model, telegram, modelBody);
    started.push(nodeRelay);
    const relay = await startLocalRelay(await buildRelay(join(home, 'relay')), { SECRET, ANTHROPIC_BASE_URL: model.anthropicBaseURL, TELEGRAM_API_ROOT: telegram.apiRoot, TELEGRAM_BOT_TOKEN: telegram.token, MODEL_BODY: modelBody });
    started.push(relay);
    const inRam = ram === '' ? undefined : await startLocalWorker(entry, bindings, ram);
    if (inRam) started.push(inRam);
    return {
      nodeRelay: { ...nodeRelay, name: 'Node relay' },
      workerdRelay: { name: 'workerd relay', origin: relay.origin, pid: relay.pid },
      ...(inRam && { workerInRam: { name: "Worker, objects' storage in RAM", origin: inRam.origin, pid: inRam.pid } }),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

export default async function run(): Promise<BenchResult[]> {
  const mode = compiledIsFresh() ? 'gateway from compiled dist/' : 'gateway from sources through tsx: run `npm run build` first for the figures that count';
  const results: BenchResult[] = [
    { name: "creating one file under the bots' storage folder, median of 200 (the disk's own cost, for context)", value: fileCreateMs(benchHomeRoot()), unit: 'ms', note: `under ${benchHomeRoot()} (OPERATOR_BENCH_HOME)` },
  ];
  const model = await startFakeModelProcess({ text: REPLY, usage: { input: 1200, output: 5, cacheRead: 1000 } });
  const telegram = await startFakeTelegramProcess(REPLY);
  const home = benchHome('operator-bench-workers-');
  try {
    const entry = await buildWorker(join(home, 'build'));
    const workerBindings = {
      TELEGRAM_BOT_TOKEN: telegram.token,
      TELEGRAM_API_ROOT: telegram.apiRoot,
      TELEGRAM_WEBHOOK_SECRET: SECRET,
      ANTHROPIC_API_KEY: 'bench-key',
      ANTHROPIC_BASE_URL: model.anthropicBaseURL,
      OPERATOR_MODEL: MODEL,
      OPERATOR_DM_POLICY: 'open',
    };
    const worker = await startLocalWorker(entry, workerBindings, join(home, 'durable-objects'));
    const port = await freePort();
    mkdirSync(join(home, 'gateway'));
    const gateway = spawnGateway({
      port,
      env: { ...gatewayEnv(join(home, 'gateway'), port, { model, telegram }), OPERATOR_MODEL: MODEL },
    });
    try {
      await gateway.ready();
      const targets: [Target, Target] = [
        { name: 'Node gateway', origin: gateway.url, pid: gateway.pid },
        { name: 'Worker (local workerd)', origin: worker.origin, pid: worker.pid },
      ];
      for (const [index, target] of targets.entries()) await wave(target, telegram, [warmChats[index]!], { connections: 1, timeoutMs: 30_000, text: 'hello' });
      if (parts.has('overhead')) results.push(...(await measureOverhead(targets, worker, model, telegram, warmChats[1]!, (modelBody) => startReferences(modelBody, { home, entry, bindings: workerBindings, model, telegram }))));
      if (parts.has('throughput')) results.push(...(await measureThroughput(targets, worker, model, telegram)));
    } catch (error) {
      // What workerd said last is the Worker's side of the failure.
      throw new Error(`${error instanceof Error ? error.message : String(error)}\nworkerd's last output:\n${worker.output().slice(-4_000)}`, { cause: error });
    } finally {
      await gateway.stop();
      await worker.close();
    }
  } finally {
    await telegram.close();
    await model.close();
    rmSync(home, { recursive: true, force: true });
  }
  for (const result of results) if (result.name.startsWith('Node gateway')) result.note = result.note ? `${result.note}; ${mode}` : mode;
  return results;
}

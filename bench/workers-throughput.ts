/**
 * Throughput, the Worker in local workerd beside the Node gateway: 1,000 private chats each post
 * one message at once (64 webhook POSTs in flight, as `gateway.bench.ts` does), through each in
 * turn; the wall time until every chat has its reply, as turns per second. A first wave creates
 * the 1,000 conversations (on Workers: 1,000 new Durable Objects); a second runs on the same,
 * now warm, ones. Then the floor relay (`workers-floor.ts`) takes the same burst: what this
 * machine allows the SDKs and the fakes; both are also given as shares of it.
 *
 * Local workerd runs every object of the Worker in one process on this two-core machine, where
 * Cloudflare spreads objects over machines: the Worker's figure here is a floor for one workerd
 * process, not what the platform would do.
 */
import type { FakeModelProcess } from './fake-model-process.ts';
import type { FakeTelegramProcess } from './gateway-telegram-process.ts';
import { median, quantile, type BenchResult } from './lib.ts';
import type { ClassCounts, LocalWorker } from './workers-miniflare.ts';
import { startFloorRelay } from './workers-floor.ts';
import { wave, type Target, type WaveResult } from './workers-turns.ts';

const CONVERSATIONS = 1_000;
const CONNECTIONS = 64;
/** Generous: a wave that misses it fails the benchmark rather than waiting for ever. */
const WAVE_TIMEOUT_MS = 180_000;

/** The wave chats of each target (and of the floor, last): 10,000,000+, 20,000,000+, ... */
const chatsOf = (index: number) => Array.from({ length: CONVERSATIONS }, (_, i) => 10_000_000 * (index + 1) + i);

/**
 * Two waves through each of `targets` (the gateway first, the Worker second), then the floor
 * relay's two rounds (the second counts). The Worker's counters are read around its first wave:
 * what a conversation's first turn costs, its object created.
 */
export async function measureThroughput(targets: [Target, Target], worker: LocalWorker, model: FakeModelProcess, telegram: FakeTelegramProcess): Promise<BenchResult[]> {
  const results: BenchResult[] = [];
  const waves: { target: Target; label: string; result: WaveResult }[] = [];
  for (const [index, target] of targets.entries()) {
    for (const [round, label] of ['first wave (1,000 new conversations)', 'warm wave (the same 1,000 again)'].entries()) {
      const counted = index === 1 && round === 0;
      if (counted) await worker.resetCounts();
      const result = await wave(target, telegram, chatsOf(index), { connections: CONNECTIONS, timeoutMs: WAVE_TIMEOUT_MS, text: label });
      if (counted) results.push(...firstTurns(await worker.counts()));
      waves.push({ target, label, result });
    }
  }
  // The gateway's own model request, as `gateway.bench.ts` replays it (the first target is the gateway).
  const relay = await startFloorRelay(model, telegram, await lastBodyOf(model, targets[0]!, telegram));
  let floor: WaveResult | undefined;
  try {
    for (let round = 0; round < 2; round++) floor = await wave(relay, telegram, chatsOf(targets.length), { connections: CONNECTIONS, timeoutMs: WAVE_TIMEOUT_MS, text: `floor ${round}` });
  } finally {
    await relay.close();
  }
  for (const { target, label, result } of waves) results.push(...waveResults(`${target.name}, ${label}`, result, floor!));
  results.push({
    name: 'floor: the bare relay on the same SDKs, 1,000 at once: turns per second',
    value: floor!.turnsPerSecond,
    unit: 'turns/s',
    note: `relay CPU per turn ${(floor!.targetCpuMs / CONVERSATIONS).toFixed(2)} ms (the second of two rounds)`,
  });
  return results;
}

/** What a conversation's first turn did to storage, its object new (per conversation of the wave). */
function firstTurns(counts: Record<string, ClassCounts>): BenchResult[] {
  const conversation = counts.conversation;
  if (!conversation) return [];
  const calls = Object.entries(conversation.calls).map(([method, count]) => `${method} ${(count / CONVERSATIONS).toFixed(1)}`).join(', ');
  return [
    {
      name: "Worker: a new conversation's first turn, its object's rows written",
      value: conversation.rowsWritten / CONVERSATIONS,
      unit: 'rows',
      note: `rows read ${(conversation.rowsRead / CONVERSATIONS).toFixed(1)}; storage calls: ${calls}; ${conversation.objects} objects created`,
    },
  ];
}

function waveResults(label: string, result: WaveResult, floor: WaveResult): BenchResult[] {
  const complete = result.refused === 0 && result.unanswered === 0;
  return [
    {
      name: `${label}: time until every chat has its reply`,
      value: result.wallMs,
      unit: 'ms',
      note: `all ${CONVERSATIONS} webhooks answered after ${result.postedMs.toFixed(0)} ms, ${result.refused} refused, ${result.resent} delivered again after a connection reset, ${result.unanswered} chats without the reply; reply latency p50 ${median(result.latencies).toFixed(0)} ms, p99 ${quantile(result.latencies, 0.99).toFixed(0)} ms`,
    },
    {
      name: `${label}: turns per second`,
      value: result.turnsPerSecond,
      unit: 'turns/s',
      note: `${((100 * result.turnsPerSecond) / floor.turnsPerSecond).toFixed(0)}% of the floor relay's; ${complete ? 'every chat answered once' : 'INCOMPLETE: see the wall-time note'}`,
    },
    { name: `${label}: CPU per turn of its process (all threads)`, value: result.targetCpuMs / CONVERSATIONS, unit: 'ms' },
  ];
}

/** One more turn through `target`, so the fake model's last request is that target's. */
async function lastBodyOf(model: FakeModelProcess, target: Target, telegram: FakeTelegramProcess): Promise<string> {
  await wave(target, telegram, [9_000], { connections: 1, timeoutMs: 30_000, text: 'the request to replay' });
  return model.lastBody();
}

/**
 * Overhead per turn, the Worker in local workerd beside the Node gateway: sequential turns
 * rotating over warm chats, each from the webhook POST to the reply at the fake Telegram, minus
 * its floor (see `workers-turns.ts`). The two take turns, one turn each in alternation (then the
 * floor of each, the order swapped every time), so a busy moment of this noisy machine falls on
 * both alike. After each pair, one turn of each reference ({@link StartReferences}). Then what
 * the Worker's objects did per turn
 * (billed requests, rows read and written, time busy) and what a conversation's object holds
 * after its turns: the inputs of the estimate in `bench/RESULTS.md`.
 */
import type { FakeModelProcess } from './fake-model-process.ts';
import type { FakeTelegramProcess } from './gateway-telegram-process.ts';
import { median, quantile, type BenchResult } from './lib.ts';
import type { ClassCounts, Footprint, LocalWorker } from './workers-miniflare.ts';
import { floorClients, timeFloor, timeTurn, webhookClient, type Target, type TurnSample, type TurnTiming } from './workers-turns.ts';

const TURNS = 1_000;
const WARMUP = 50;
/** Turns rotate over this many chats per target, so each conversation reaches ~21 turns. */
const CHATS = 50;
const FLOOR_CHAT = 3_000;
/** The Worker's p50 target (issue 20). */
const TARGET_P50_MS = 3;

/**
 * Bots measured by their turns alone, beside the two (see {@link measureOverhead}): started once
 * the warm-up is over, with a model request the Worker sent then (the relays replay it). That
 * request carries one turn of history, where the measured turns' carry up to 21: the relays'
 * turns are a little shorter than theirs would be with the longer requests (the SDK's encoding
 * of a few KB more), so the "own code" figures lean high, not low.
 */
export type StartReferences = (modelBody: string) => Promise<{ nodeRelay: Target; workerdRelay: Target; workerInRam?: Target; close(): Promise<void> }>;

/** Turns each reference takes before it is measured (modules loaded, connections open). */
const REFERENCE_WARMUP = 10;

/** Sequential chats of each target: 2,000+ for the first, 4,000+ for the second, ... */
const chatOf = (targetIndex: number, turn: number) => 2_000 + 2_000 * targetIndex + (turn % CHATS);

/**
 * Runs the interleaved turns through `targets` (the Node gateway first, the Worker second) and
 * reports each one's overhead; `worker` is read for its counters and its objects' storage.
 * `baselineChat` is a Worker chat that has had exactly one turn (the footprint's baseline).
 */
export async function measureOverhead(targets: [Target, Target], worker: LocalWorker, model: FakeModelProcess, telegram: FakeTelegramProcess, baselineChat: number, startReferences: StartReferences): Promise<BenchResult[]> {
  const floor = { ...(await floorClients(model, telegram)), floorChat: FLOOR_CHAT };
  const clients = targets.map((target) => webhookClient(target, 4));
  const samples: TurnSample[][] = targets.map(() => []);
  let counts: Record<string, ClassCounts>;
  let references: Awaited<ReturnType<StartReferences>> | undefined;
  let referenceTurns: ReferenceTurns | undefined;
  let modelBody = '';
  try {
    for (let i = 0; i < WARMUP + TURNS; i++) {
      if (i === WARMUP) {
        await worker.resetCounts();
        references = await startReferences(modelBody);
        referenceTurns = await ReferenceTurns.warm([references.nodeRelay, references.workerdRelay, ...(references.workerInRam ? [references.workerInRam] : [])], model, telegram);
      }
      // Both turns, then both floors, in the same order: a target's floor comes after the other's
      // turn or floor, once it has finished its own turn's work after the reply (the Worker notes
      // the delivery and makes it durable then), which would otherwise slow its floor's
      // `/healthz`. The order swaps every turn, so each target's calls follow the other's alike.
      const order = i % 2 === 0 ? [0, 1] : [1, 0];
      const turns: TurnTiming[] = [];
      for (const index of order) turns[index] = await timeTurn(targets[index]!, clients[index]!, telegram, model, chatOf(index, i), `question ${i}`);
      for (const index of order) {
        const { modelBody: sent, ...turn } = turns[index]!;
        const sample = { ...turn, ...(await timeFloor(targets[index]!, clients[index]!, floor, sent)) };
        if (i >= WARMUP) samples[index]!.push(sample);
      }
      modelBody = turns[1]!.modelBody;
      await referenceTurns?.turn(i);
    }
    counts = await worker.counts();
  } finally {
    for (const client of clients) client.close();
    referenceTurns?.close();
    await references?.close();
  }
  const results = targets.flatMap((target, index) => overheadResults(target, samples[index]!, index === 1 ? TARGET_P50_MS : undefined));
  const medianTurn = (index: number) => median(samples[index]!.map((sample) => sample.turn));
  results.push({ name: 'Worker turn minus gateway turn, medians', value: medianTurn(1) - medianTurn(0), unit: 'ms', note: 'the same fakes and floor calls, interleaved turn by turn' });
  results.push(...referenceTurns!.results(medianTurn(0), medianTurn(1)));
  results.push(...perTurn(counts));
  results.push(...(await storage(worker, baselineChat)));
  return results;
}

/**
 * The references' turns, one each after every measured turn of the two (in a rotating order),
 * from the webhook POST to the reply at the fake Telegram, as the two's.
 */
class ReferenceTurns {
  private readonly clients: ReturnType<typeof webhookClient>[];
  private readonly turns: number[][];

  private constructor(
    private readonly targets: Target[],
    private readonly model: FakeModelProcess,
    private readonly telegram: FakeTelegramProcess,
  ) {
    this.clients = targets.map((target) => webhookClient(target, 4));
    this.turns = targets.map(() => []);
  }

  static async warm(targets: Target[], model: FakeModelProcess, telegram: FakeTelegramProcess): Promise<ReferenceTurns> {
    const references = new ReferenceTurns(targets, model, telegram);
    for (let i = 0; i < REFERENCE_WARMUP; i++) await references.turn(i, false);
    return references;
  }

  async turn(i: number, keep = true): Promise<void> {
    for (let step = 0; step < this.targets.length; step++) {
      const index = (i + step) % this.targets.length;
      const { turn } = await timeTurn(this.targets[index]!, this.clients[index]!, this.telegram, this.model, chatOf(2 + index, i), `question ${i}`);
      if (keep) this.turns[index]!.push(turn);
    }
  }

  /** The references' medians, and what they tell of the two's (`gatewayTurn`, `workerTurn`: their medians). */
  results(gatewayTurn: number, workerTurn: number): BenchResult[] {
    const [nodeRelay, workerdRelay, workerInRam] = this.turns.map((turns) => median(turns));
    const results: BenchResult[] = this.targets.map((target, index) => ({ name: `${target.name}: turn, webhook POST to the reply at the fake Telegram, median`, value: median(this.turns[index]!), unit: 'ms', note: `p99 ${quantile(this.turns[index]!, 0.99).toFixed(2)} ms; ${this.turns[index]!.length} turns, one after each of the two's` }));
    results.push(
      { name: "Node gateway turn minus the Node relay's turn, medians: operator's own code on Node", value: gatewayTurn - nodeRelay!, unit: 'ms', note: 'the relay makes the same SDK call and sendMessage and nothing else' },
      { name: "Worker turn minus the workerd relay's turn, medians: operator's own code on Workers", value: workerTurn - workerdRelay!, unit: 'ms', note: "the same relay as a Worker: what is left is the Worker's own code, its object's request and its storage" },
      { name: "workerd relay turn minus the Node relay's turn, medians: what local workerd adds to the same calls", value: workerdRelay! - nodeRelay!, unit: 'ms' },
    );
    if (workerInRam !== undefined) results.push({ name: "Worker turn, the objects' storage on disk minus in RAM, medians: local SQLite's commits", value: workerTurn - workerInRam, unit: 'ms', note: "the same Worker with its objects' databases in /dev/shm, where a commit's fsync costs nothing; production has no local fsync (a write is confirmed by replication)" });
    return results;
  }

  close(): void {
    for (const client of this.clients) client.close();
  }
}

function overheadResults(target: Target, samples: TurnSample[], targetP50?: number): BenchResult[] {
  const of = (key: keyof TurnSample) => samples.map((sample) => sample[key]);
  const p99 = (values: number[]) => `p99 ${quantile(values, 0.99).toFixed(2)} ms`;
  const p50 = median(of('turn')) - median(of('floor'));
  const tail = quantile(of('turn'), 0.99) - quantile(of('floor'), 0.99);
  return [
    {
      name: `${target.name}: floor (GET /healthz + bare SDK call + bare sendMessage), median`,
      value: median(of('floor')),
      unit: 'ms',
      note: `${p99(of('floor'))}; /healthz ${median(of('health')).toFixed(2)} ms, SDK ${median(of('sdk')).toFixed(2)} ms, sendMessage ${median(of('send')).toFixed(2)} ms`,
    },
    { name: `${target.name}: turn, webhook POST to the reply at the fake Telegram, median`, value: median(of('turn')), unit: 'ms', note: `${p99(of('turn'))}; ${samples.length} turns over ${CHATS} chats after ${WARMUP} warm-up turns` },
    {
      name: `${target.name}: the turn's stages, medians from the webhook POST`,
      value: median(of('modelReached')),
      unit: 'ms',
      note: `webhook answered ${median(of('acked')).toFixed(2)} ms, model request read by the fake model ${median(of('modelReached')).toFixed(2)} ms (the value), reply at the fake Telegram ${median(of('turn')).toFixed(2)} ms`,
    },
    {
      name: `${target.name}: overhead per turn beyond the floor (p50)`,
      value: p50,
      unit: 'ms',
      ...(targetP50 === undefined ? { note: "the gateway bench's own target for it is <= 2 ms" } : { target: `<= ${targetP50} ms`, pass: p50 <= targetP50 }),
    },
    { name: `${target.name}: overhead per turn beyond the floor (p99)`, value: tail, unit: 'ms' },
  ];
}

/** What the Worker's objects did per measured turn. */
function perTurn(counts: Record<string, ClassCounts>): BenchResult[] {
  const results: BenchResult[] = [];
  const requests = (kind: string) => Object.values(counts[kind]?.requests ?? {}).reduce((sum, count) => sum + count, 0);
  const detail = (kind: string) => Object.entries(counts[kind]?.requests ?? {}).map(([method, count]) => `${method} ${(count / TURNS).toFixed(2)}`).join(', ');
  const calls = (kind: string) => Object.entries(counts[kind]?.calls ?? {}).map(([method, count]) => `${method} ${(count / TURNS).toFixed(2)}`).join(', ');
  for (const kind of ['conversation', 'access']) {
    const counted = counts[kind];
    if (!counted) continue;
    results.push(
      { name: `Worker: ${kind} object requests per turn (RPC calls and alarms, each billed)`, value: requests(kind) / TURNS, unit: 'requests', note: detail(kind) },
      { name: `Worker: ${kind} object rows written per turn`, value: counted.rowsWritten / TURNS, unit: 'rows', note: `rows read ${(counted.rowsRead / TURNS).toFixed(2)}; storage calls per turn: ${calls(kind)}` },
    );
  }
  return results;
}

/** What the sequential chats' objects hold after their turns, against one after a single turn. */
async function storage(worker: LocalWorker, baselineChat: number): Promise<BenchResult[]> {
  const turnsEach = (WARMUP + TURNS) / CHATS;
  const prints: Footprint[] = [];
  for (let chat = 0; chat < CHATS; chat++) prints.push(await worker.footprint(`telegram:dm:${chatOf(1, chat)}`));
  const baseline = await worker.footprint(`telegram:dm:${baselineChat}`);
  const mean = (key: keyof Footprint) => prints.reduce((sum, print) => sum + print[key], 0) / prints.length;
  const kb = (bytes: number) => (bytes / 1024).toFixed(1);
  return [
    { name: 'Worker: a conversation object after 1 turn, SQLite database size', value: baseline.databaseSize / 1024, unit: 'KB', note: `${baseline.keys} keys, ${kb(baseline.bytes)} KB of keys and values` },
    {
      name: `Worker: a conversation object after ${turnsEach} turns, SQLite database size (mean of ${CHATS})`,
      value: mean('databaseSize') / 1024,
      unit: 'KB',
      note: `${mean('keys').toFixed(0)} keys, ${kb(mean('bytes'))} KB of keys and values; the model request grows with the history`,
    },
    {
      name: 'Worker: storage growth per turn (database size)',
      value: (mean('databaseSize') - baseline.databaseSize) / 1024 / (turnsEach - 1),
      unit: 'KB',
      note: `keys and values ${kb((mean('bytes') - baseline.bytes) / (turnsEach - 1))} KB per turn`,
    },
  ];
}

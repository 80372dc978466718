/**
 * Lean (issue 33): operator's real gateway process against a bare bot built from the same
 * dependencies (`lean-bare-bot.ts`: grammY long polling + one streaming Anthropic SDK call per
 * message), measured in the same run, their runs interleaved (bare, operator, bare, operator ...)
 * so the machine's noise falls on both. Each bot runs in its own process against its own fake
 * Telegram server (long polling, no webhook; `lean-telegram-child.ts`) and the fake model
 * (`fake-model-process.ts`), whose reply is short enough to end each turn in one sendMessage.
 *
 * Run: `npm run bench -- lean` (about a minute; builds dist/ first when it is stale, and every
 * operator figure notes whether the compiled dist/ ran). operator runs as `node bin/operator.js
 * start`, a new OPERATOR_HOME each start; the bare bot as `node bench/out/lean-bare-bot.mjs`,
 * bundled by esbuild with its two SDKs as bin/build.js bundles them into dist/
 * (`OPERATOR_BENCH_LEAN_BARE=plain`: translated only, its SDKs loaded from node_modules, some
 * 300 ms slower to its first reply). The figures, each for both bots, and operator's against the
 * bare bot's in the same run:
 *
 * 1. spawn to the first reply, a DM already waiting in the fake before the process starts; median
 *    of five starts each. Target: operator at most 1.5x the bare bot.
 * 2. spawn to the first getUpdates call reaching the fake (same starts; informative).
 * 3. first update to its reply: from the fake handing over the getUpdates answer that carried the
 *    waiting DM to the reply's sendMessage arriving (same starts). Target: operator <= 100 ms.
 * 4. resident memory (VmRSS) once idle after the first reply, no GC forced: both bots left alone
 *    until their RSS holds within 1% for 3 s with no CPU used. Target: operator <= bare + 15 MB.
 * 5. a first message in each of 50 new chats, one after another (bare's turn, then operator's),
 *    median latency from the message queued at the fake to the reply arriving. Target:
 *    operator's median <= bare's + 1.5 ms.
 * 6. 50 more turns in the chat of the first DM, median latency (informative).
 * 7. CPU per turn of the whole process (utime + stime from /proc, over the 50 turns of 5 and of
 *    6, divided by 50). Target: operator <= 1.2x the bare bot, each.
 * 8. 1,000 new chats at once (one message each, all queued, so getUpdates hands them over 100 at
 *    a time): turns per second from queueing them until every chat has its reply; three rounds
 *    each, alternating, new chats each time; the best counts (both processes warm up from one
 *    round to the next). Target: operator >= 0.8x the bare bot.
 */
import { execFileSync } from 'node:child_process';
import { startFakeModelProcess } from './fake-model-process.ts';
import { compiledIsFresh, cpuMs, residentKb, root } from './gateway-process.ts';
import { bareBuild, compileBareBot, type BotKind } from './lean-bots.ts';
import { burst, idleResident, start, stop, turn, type BurstFigures, type Running, type StartFigures } from './lean-measure.ts';
import { leanReport, type LeanRow } from './lean-report.ts';
import { startLeanTelegram } from './lean-telegram-process.ts';
import { REPLY } from './telegram-updates.ts';
import { median, quantile, type BenchResult } from './lib.ts';

const STARTS = 5;
const TURNS = 50;
const BURST_CHATS = 1_000;
const BURST_ROUNDS = 3;
const kinds: BotKind[] = ['bare', 'operator'];

type Both<T> = Record<BotKind, T>;
const both = <T>(make: () => T): Both<T> => ({ bare: make(), operator: make() });

export default async function run(): Promise<BenchResult[]> {
  if (!compiledIsFresh()) execFileSync(process.execPath, [`${root}bin/build.js`], { cwd: root, stdio: 'inherit' });
  const model = await startFakeModelProcess({ text: REPLY, usage: { input: 1200, output: 5, cacheRead: 1000 } });
  const telegram = await startLeanTelegram(REPLY);
  await compileBareBot();
  const running: Partial<Both<Running>> = {};
  try {
    // 1-3: starts, interleaved; the last start of each bot stays up for the rest.
    const starts = both<StartFigures[]>(() => []);
    for (let round = 0; round < STARTS; round++) {
      for (const kind of kinds) {
        const started = await start(kind, 100 + round, telegram, model);
        starts[kind].push(started.figures);
        if (round < STARTS - 1) await stop(started.running);
        else running[kind] = started.running;
      }
    }
    const bots = running as Both<Running>;

    // 4: both idle at once (neither does anything while the other waits).
    const [bareIdle, operatorIdle] = await Promise.all(kinds.map((kind) => idleResident(bots[kind].bot.pid)));
    const idle: Both<{ kb: number; seconds: number }> = { bare: bareIdle!, operator: operatorIdle! };

    // 5-7: turns alternating between the bots, one at a time.
    const alternate = async (chatOf: (kind: BotKind, index: number) => number, text: string) => {
      const latencies = both<number[]>(() => []);
      const cpuBefore = { bare: cpuMs(bots.bare.bot.pid), operator: cpuMs(bots.operator.bot.pid) };
      for (let index = 0; index < TURNS; index++) {
        for (const kind of kinds) latencies[kind].push(await turn(bots[kind], chatOf(kind, index), `${text} ${index}`));
      }
      const cpuPerTurn = { bare: (cpuMs(bots.bare.bot.pid) - cpuBefore.bare) / TURNS, operator: (cpuMs(bots.operator.bot.pid) - cpuBefore.operator) / TURNS };
      return { latencies, cpuPerTurn };
    };
    const newChats = await alternate((_kind, index) => 1_000 + index, 'a first message');
    const oneChat = await alternate((kind) => bots[kind].firstChat, 'one more turn');
    await model.lastBody(); // the fake model keeps every request until asked for the last

    // 8: bursts, alternating, new chats each round.
    const bursts = both<BurstFigures[]>(() => []);
    for (let round = 0; round < BURST_ROUNDS; round++) {
      for (const kind of kinds) {
        const chats = Array.from({ length: BURST_CHATS }, (_, index) => 1_000_000 + round * 10_000 + index);
        bursts[kind].push(await burst(bots[kind], chats));
        await model.lastBody();
      }
    }
    const rss = { bare: residentKb(bots.bare.bot.pid), operator: residentKb(bots.operator.bot.pid) };

    const rows = figures(starts, idle, newChats, oneChat, bursts, rss);
    const bare = bareBuild() === 'bundle' ? 'bundled by esbuild with its SDKs, as dist/ bundles them (bench/out/lean-bare-bot.mjs)' : 'as plain JavaScript, its SDKs from node_modules (bench/out/lean-bare-bot.mjs)';
    return leanReport(rows, bare);
  } finally {
    for (const kind of kinds) if (running[kind]) await stop(running[kind]);
    await telegram.close();
    await model.close();
  }
}

type Alternated = { latencies: Both<number[]>; cpuPerTurn: Both<number> };

/** The table's rows from what was measured. */
function figures(starts: Both<StartFigures[]>, idle: Both<{ kb: number; seconds: number }>, newChats: Alternated, oneChat: Alternated, bursts: Both<BurstFigures[]>, rssAfter: Both<number>): LeanRow[] {
  // Sources edited during the run make bin/operator.js run them through tsx from then on.
  const throughTsx = starts.operator.flatMap((figures, index) => (figures.compiled ? [] : [index + 1]));
  const startMode = throughTsx.length === 0 ? 'compiled dist/' : `sources through tsx in start(s) ${throughTsx.join(', ')} of ${starts.operator.length} (src/ changed during the run)`;
  const mode = starts.operator.at(-1)!.compiled ? 'compiled dist/' : 'sources through tsx (src/ changed during the run)';
  const startMedian = (kind: BotKind, pick: (figures: StartFigures) => number) => median(starts[kind].map(pick));
  const runs = (pick: (figures: StartFigures) => number) => `runs: bare ${starts.bare.map(pick).map(whole).join(', ')}; operator ${starts.operator.map(pick).map(whole).join(', ')} ms`;
  const best = (kind: BotKind) => bursts[kind].reduce((a, b) => (b.turnsPerSecond > a.turnsPerSecond ? b : a));
  const latencyNote = (alternated: Alternated) => `p90 bare ${p90(alternated.latencies.bare)}, operator ${p90(alternated.latencies.operator)} ms`;
  return [
    {
      figure: 'spawn to the first reply (DM waiting), median of 5',
      unit: 'ms',
      bare: startMedian('bare', (f) => f.toReply),
      operator: startMedian('operator', (f) => f.toReply),
      target: { kind: 'ratio', limit: 1.5 },
      note: runs((f) => f.toReply),
      mode: startMode,
    },
    { figure: 'spawn to the first getUpdates, median of 5', unit: 'ms', bare: startMedian('bare', (f) => f.toPoll), operator: startMedian('operator', (f) => f.toPoll), note: runs((f) => f.toPoll), mode: startMode },
    {
      figure: 'first update to its reply, median of 5',
      unit: 'ms',
      bare: startMedian('bare', (f) => f.updateToReply),
      operator: startMedian('operator', (f) => f.updateToReply),
      target: { kind: 'absolute', limit: 100 },
      note: runs((f) => f.updateToReply),
      mode: startMode,
    },
    {
      figure: 'resident memory, idle after the first reply',
      unit: 'MB',
      bare: idle.bare.kb / 1024,
      operator: idle.operator.kb / 1024,
      target: { kind: 'difference', limit: 15 },
      note: `steady after ${idle.bare.seconds} s (bare) and ${idle.operator.seconds} s (operator), no GC forced; after the bursts bare ${mb(rssAfter.bare)}, operator ${mb(rssAfter.operator)} MB`,
      mode,
    },
    {
      figure: 'a first message in each of 50 new chats, median',
      unit: 'ms',
      bare: median(newChats.latencies.bare),
      operator: median(newChats.latencies.operator),
      target: { kind: 'difference', limit: 1.5 },
      note: latencyNote(newChats),
      mode,
    },
    { figure: "a conversation's 50 turns, median", unit: 'ms', bare: median(oneChat.latencies.bare), operator: median(oneChat.latencies.operator), note: latencyNote(oneChat), mode },
    { figure: 'CPU per turn (whole process), first message in a new chat', unit: 'ms', bare: newChats.cpuPerTurn.bare, operator: newChats.cpuPerTurn.operator, target: { kind: 'ratio', limit: 1.2 }, note: '/proc utime+stime over the 50 turns, 10 ms ticks', mode },
    { figure: 'CPU per turn (whole process), in one conversation', unit: 'ms', bare: oneChat.cpuPerTurn.bare, operator: oneChat.cpuPerTurn.operator, target: { kind: 'ratio', limit: 1.2 }, note: '/proc utime+stime over the 50 turns, 10 ms ticks', mode },
    {
      figure: `1,000 chats at once, best of ${BURST_ROUNDS}`,
      unit: 'turns/s',
      bare: best('bare').turnsPerSecond,
      operator: best('operator').turnsPerSecond,
      target: { kind: 'ratio', limit: 0.8, atLeast: true },
      note: `rounds: bare ${bursts.bare.map((b) => whole(b.turnsPerSecond)).join(', ')}; operator ${bursts.operator.map((b) => whole(b.turnsPerSecond)).join(', ')} turns/s; CPU per turn bare ${best('bare').cpuPerTurn.toFixed(1)}, operator ${best('operator').cpuPerTurn.toFixed(1)} ms`,
      mode,
    },
  ];
}

const whole = (value: number) => value.toFixed(0);
const mb = (kb: number) => (kb / 1024).toFixed(0);
const p90 = (samples: number[]) => quantile(samples, 0.9).toFixed(1);

/**
 * Lean (issue 33): operator's real gateway process against a bare bot built from the same
 * dependencies (`lean-bare-bot.ts`: grammY long polling + one streaming Anthropic SDK call per
 * message), measured in the same run, their runs interleaved (bare, operator, bare, operator ...)
 * so the machine's noise falls on both. Each bot runs in its own process against its own fake
 * Telegram server (long polling, no webhook; `lean-telegram-child.ts`) and the fake model
 * (`fake-model-process.ts`), whose reply is short enough to end each turn in one sendMessage.
 *
 * A third bot splits operator's per-turn cost in two: the bare bot replaying operator's own model
 * request (`replay`, the column "bare, operator's request"). After operator's first start the
 * last request the fake model received is operator's (nothing else was talking); it is written
 * to bench/out/lean-operator-request.json, and the same bare bot, started with
 * `LEAN_MODEL_BODY_FILE` naming it, sends that body each turn (the person's text in place of its
 * last user message's text) instead of its own small one. What a bot sends (operator's system
 * prompt and tool definitions: the report prints the sizes) is then in both columns, and
 * operator's ratio to the replaying bot is what operator's own code costs. It runs in the same
 * interleaved rounds as the other two; it has no target (the issue's are against the plain bare
 * bot). Its request does not grow with the conversation as operator's does (the report notes
 * both sizes).
 *
 * Run: `npm run bench -- lean` (about a minute; builds dist/ first when it is stale, and every
 * operator figure notes whether the compiled dist/ ran). operator runs as `node bin/operator.js
 * start`, a new OPERATOR_HOME each start; the bare bot as `node bench/out/lean-bare-bot.mjs`,
 * bundled by esbuild with its two SDKs, as bin/build.js bundles them into dist/
 * (`OPERATOR_BENCH_LEAN_BARE=plain`: translated only, its SDKs loaded from node_modules, some
 * 300 ms slower to its first reply). The figures, each for the three bots, and operator's against
 * the bare bot's in the same run:
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
 *    each, alternating, new chats each time; the best counts (the processes warm up from one
 *    round to the next). Target: operator >= 0.8x the bare bot.
 *
 * `OPERATOR_BENCH_LEAN_SECOND_NODE` names a second Node.js binary (CI's Node 24:
 * `.ci/node24/node_modules/.bin/node`): everything above is measured again with the three bots run
 * by it (the fakes stay on this process's Node), each version's table printed, then both side by
 * side (`lean-versions-report.ts`). Before each version's starts `dist/.compile-cache` is emptied:
 * the first start fills it (Node 22.1 and newer), and the row "starts 2-5" is the start with it warm.
 *
 * `OPERATOR_BENCH_LEAN_NODE_ARGS` adds node options to operator's process, and
 * `OPERATOR_BENCH_LEAN_BARE_NODE_ARGS` to the bare bots' (e.g. `--cpu-prof
 * --cpu-prof-dir=/tmp/prof`: one profile per start, the last one holding the turns and bursts).
 *
 * Before the turns of 5 and before each burst, the run waits until the fake Telegram server has
 * closed the connections the bot left idle (`lean-connections.ts`): one taken from the pool as
 * the server closes it loses that chat's reply, a race of the fake, not a cost of either bot.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { startFakeModelProcess, type FakeModelProcess } from './fake-model-process.ts';
import { compiledIsFresh, cpuMs, residentKb, root } from './gateway-process.ts';
import { bareBuild, captureOperatorRequest, compileBareBot, removeStoppedHomes, replayBodyFile, type BotKind } from './lean-bots.ts';
import { burst, idleResident, settled, start, stop, turn, type BurstFigures, type Running, type StartFigures } from './lean-measure.ts';
import { leanReport, type LeanRow, type MeasuredOn } from './lean-report.ts';
import { leanVersionsReport } from './lean-versions-report.ts';
import { startLeanTelegram, type LeanTelegram } from './lean-telegram-process.ts';
import { REPLY } from './telegram-updates.ts';
import { benchHomeRoot, fileCreateMs, median, quantile, type BenchResult } from './lib.ts';

const STARTS = 5;
const TURNS = 50;
const BURST_CHATS = 1_000;
const BURST_ROUNDS = 3;
const kinds: BotKind[] = ['bare', 'replay', 'operator'];
// The replaying bot starts after operator: round 1 captures the request it replays.
const startOrder: BotKind[] = ['bare', 'operator', 'replay'];
// operator's turn comes last in a round, so the fake's last request after a series is operator's.
const turnOrder: BotKind[] = ['bare', 'replay', 'operator'];

type Each<T> = Record<BotKind, T>;
const each = <T>(make: () => T): Each<T> => ({ bare: make(), replay: make(), operator: make() });
const bytesOf = (body: string) => Buffer.byteLength(body);

export default async function run(): Promise<BenchResult[]> {
  if (!compiledIsFresh()) execFileSync(process.execPath, [`${root}bin/build.js`], { cwd: root, stdio: 'inherit' });
  const second = process.env.OPERATOR_BENCH_LEAN_SECOND_NODE;
  const nodes = [process.execPath, ...(second ? [second] : [])];
  const model = await startFakeModelProcess({ text: REPLY, usage: { input: 1200, output: 5, cacheRead: 1000 } });
  const telegram = await startLeanTelegram(REPLY);
  await compileBareBot();
  try {
    // The disk's cost of a new file, before and after: operator's first message in a new chat
    // makes four (its session, the session's index entry, the conversation's record, the
    // person's spend of the day), and on this machine that cost has moved between 0.02 and 1 ms.
    const diskBefore = fileCreateMs(benchHomeRoot());
    const measured: MeasuredOn[] = [];
    // One Node.js after the other, the same fakes (run by this process's Node) for both.
    for (const node of nodes) measured.push(await measureOn(node, telegram, model));
    const results = measured.flatMap((on) => leanReport(on.rows, on.bareRan, on.replayRan, nodes.length > 1 ? on.version : undefined));
    if (measured.length === 2) results.push(...leanVersionsReport(measured[0]!, measured[1]!));
    const diskAfter = fileCreateMs(benchHomeRoot());
    results.push({ name: "creating one file under the bots' homes, median of 200, before the run (the disk's own cost, for context)", value: diskBefore, unit: 'ms', note: `after the run: ${diskAfter.toFixed(3)} ms; under ${benchHomeRoot()} (OPERATOR_BENCH_HOME)` });
    return results;
  } finally {
    await telegram.close();
    await model.close();
    removeStoppedHomes();
  }
}

/** Every figure of the three bots, all run by the Node.js binary `node`. */
async function measureOn(node: string, telegram: LeanTelegram, model: FakeModelProcess): Promise<MeasuredOn> {
  const version = execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
  // The compile cache (Node 22.1 and newer) emptied, so the first start fills it and the four
  // after it find it warm, as every start after a person's first does.
  rmSync(`${root}dist/.compile-cache`, { recursive: true, force: true });
  const running: Partial<Each<Running>> = {};
  try {
    // 1-3: starts, interleaved; the last start of each bot stays up for the rest.
    const starts = each<StartFigures[]>(() => []);
    let captured: { bytes: number; tools: number } | undefined;
    for (let round = 0; round < STARTS; round++) {
      for (const kind of startOrder) {
        const started = await start(kind, 100 + round, telegram, model, node);
        starts[kind].push(started.figures);
        // operator's first turn ever, a DM in a new chat: the request the replaying bot sends.
        if (kind === 'operator' && !captured) captured = captureOperatorRequest(await model.lastBody());
        // The replaying bot's first turn must have sent that request (the same size: the same text, "hello").
        if (kind === 'replay' && round === 0 && bytesOf(await model.lastBody()) !== captured!.bytes) throw new Error("lean: the replaying bare bot did not send operator's request");
        if (round < STARTS - 1) await stop(started.running);
        else running[kind] = started.running;
      }
    }
    const bots = running as Each<Running>;

    // 4: all idle at once (none does anything while the others wait).
    const idleReads = await Promise.all(kinds.map((kind) => idleResident(bots[kind].bot.pid)));
    const idle = each(() => ({ kb: 0, seconds: 0 }));
    kinds.forEach((kind, index) => (idle[kind] = idleReads[index]!));

    // 5-7: turns alternating between the bots, one at a time; then the size of operator's last request.
    const alternate = async (chatOf: (kind: BotKind, index: number) => number, text: string): Promise<Alternated> => {
      const latencies = each<number[]>(() => []);
      const cpuBefore = each(() => 0);
      for (const kind of kinds) cpuBefore[kind] = cpuMs(bots[kind].bot.pid);
      for (let index = 0; index < TURNS; index++) {
        for (const kind of turnOrder) latencies[kind].push(await turn(bots[kind], chatOf(kind, index), `${text} ${index}`));
      }
      const cpuPerTurn = each(() => 0);
      for (const kind of kinds) cpuPerTurn[kind] = (cpuMs(bots[kind].bot.pid) - cpuBefore[kind]) / TURNS;
      // Also empties the fake model's list: it keeps every request until asked for the last.
      return { latencies, cpuPerTurn, operatorRequestBytes: bytesOf(await model.lastBody()) };
    };
    // The connections each bot left idle while idle are closed first (lean-connections.ts).
    await Promise.all(kinds.map((kind) => settled(bots[kind])));
    const newChats = await alternate((_kind, index) => 1_000 + index, 'a first message');
    const oneChat = await alternate((kind) => bots[kind].firstChat, 'one more turn');

    // 8: bursts, alternating, new chats each round (each once its bot's idle connections are closed).
    const bursts = each<BurstFigures[]>(() => []);
    for (let round = 0; round < BURST_ROUNDS; round++) {
      for (const kind of turnOrder) {
        const chats = Array.from({ length: BURST_CHATS }, (_, index) => 1_000_000 + round * 10_000 + index);
        bursts[kind].push(await burst(bots[kind], chats));
        await model.lastBody();
      }
    }
    const rss = each(() => 0);
    for (const kind of kinds) rss[kind] = residentKb(bots[kind].bot.pid);

    const rows = figures(starts, idle, newChats, oneChat, bursts, rss);
    const bareRan = bareBuild() === 'bundle' ? 'bundled by esbuild with its SDKs into one module, as dist/ holds them (bench/out/lean-bare-bot.mjs)' : 'as plain JavaScript, its SDKs from node_modules (bench/out/lean-bare-bot.mjs)';
    const kb = (bytes: number) => (bytes / 1024).toFixed(1);
    const replayRan =
      `the same bare bot sending operator's first request of the run (${kb(captured!.bytes)} KB, ${captured!.tools} tools; ${replayBodyFile.slice(root.length)}) with the person's text as its last message's; ` +
      `operator's own requests: ${kb(newChats.operatorRequestBytes)} KB in a new chat, ${kb(oneChat.operatorRequestBytes)} KB at the end of the conversation`;
    return { version, rows, bareRan, replayRan };
  } finally {
    for (const kind of kinds) if (running[kind]) await stop(running[kind]);
  }
}

type Alternated = { latencies: Each<number[]>; cpuPerTurn: Each<number>; operatorRequestBytes: number };

/** The table's rows from what was measured. */
function figures(starts: Each<StartFigures[]>, idle: Each<{ kb: number; seconds: number }>, newChats: Alternated, oneChat: Alternated, bursts: Each<BurstFigures[]>, rssAfter: Each<number>): LeanRow[] {
  // Sources edited during the run make bin/operator.js run them through tsx from then on.
  const throughTsx = starts.operator.flatMap((figures, index) => (figures.compiled ? [] : [index + 1]));
  const startMode = throughTsx.length === 0 ? 'compiled dist/' : `sources through tsx in start(s) ${throughTsx.join(', ')} of ${starts.operator.length} (src/ changed during the run)`;
  const mode = starts.operator.at(-1)!.compiled ? 'compiled dist/' : 'sources through tsx (src/ changed during the run)';
  const startMedian = (kind: BotKind, pick: (figures: StartFigures) => number, from: number) => median(starts[kind].slice(from).map(pick));
  const startRow = (pick: (figures: StartFigures) => number, from = 0) => ({
    bare: startMedian('bare', pick, from),
    replay: startMedian('replay', pick, from),
    operator: startMedian('operator', pick, from),
    note: `runs: ${kinds.map((kind) => `${kind} ${starts[kind].map(pick).map(whole).join(', ')}`).join('; ')} ms`,
    mode: startMode,
  });
  const best = (kind: BotKind) => bursts[kind].reduce((a, b) => (b.turnsPerSecond > a.turnsPerSecond ? b : a));
  const listed = (value: (kind: BotKind) => string) => kinds.map((kind) => `${kind} ${value(kind)}`).join(', ');
  const latencyRow = (alternated: Alternated) => ({
    bare: median(alternated.latencies.bare),
    replay: median(alternated.latencies.replay),
    operator: median(alternated.latencies.operator),
    perTurn: true,
    note: `p90 ${listed((kind) => p90(alternated.latencies[kind]))} ms`,
    mode,
  });
  const cpuRow = (alternated: Alternated) => ({
    bare: alternated.cpuPerTurn.bare,
    replay: alternated.cpuPerTurn.replay,
    operator: alternated.cpuPerTurn.operator,
    perTurn: true,
    target: { kind: 'ratio', limit: 1.2 } as const,
    note: '/proc utime+stime over the 50 turns, 10 ms ticks',
    mode,
  });
  return [
    { figure: 'spawn to the first reply (DM waiting), median of 5', unit: 'ms', ...startRow((f) => f.toReply), target: { kind: 'ratio', limit: 1.5 } },
    // The first start found the compile cache empty (Node 22.1 and newer keep one; 20 has none).
    { figure: 'spawn to the first reply, starts 2-5 (compile cache warm), median', unit: 'ms', ...startRow((f) => f.toReply, 1) },
    { figure: 'spawn to the first getUpdates, median of 5', unit: 'ms', ...startRow((f) => f.toPoll) },
    { figure: 'first update to its reply, median of 5', unit: 'ms', ...startRow((f) => f.updateToReply), target: { kind: 'absolute', limit: 100 } },
    {
      figure: 'resident memory, idle after the first reply',
      unit: 'MB',
      bare: idle.bare.kb / 1024,
      replay: idle.replay.kb / 1024,
      operator: idle.operator.kb / 1024,
      target: { kind: 'difference', limit: 15 },
      note: `steady after ${listed((kind) => `${idle[kind].seconds} s`)}, no GC forced; after the bursts ${listed((kind) => mb(rssAfter[kind]))} MB`,
      mode,
    },
    { figure: 'a first message in each of 50 new chats, median', unit: 'ms', ...latencyRow(newChats), target: { kind: 'difference', limit: 1.5 } },
    { figure: "a conversation's 50 turns, median", unit: 'ms', ...latencyRow(oneChat) },
    { figure: 'CPU per turn (whole process), first message in a new chat', unit: 'ms', ...cpuRow(newChats) },
    { figure: 'CPU per turn (whole process), in one conversation', unit: 'ms', ...cpuRow(oneChat) },
    {
      figure: `1,000 chats at once, best of ${BURST_ROUNDS}`,
      unit: 'turns/s',
      bare: best('bare').turnsPerSecond,
      replay: best('replay').turnsPerSecond,
      operator: best('operator').turnsPerSecond,
      perTurn: true,
      target: { kind: 'ratio', limit: 0.8, atLeast: true },
      note: `rounds: ${kinds.map((kind) => `${kind} ${bursts[kind].map((b) => whole(b.turnsPerSecond)).join(', ')}`).join('; ')} turns/s; CPU per turn ${listed((kind) => best(kind).cpuPerTurn.toFixed(1))} ms; waited for idle connections to close, all rounds: ${listed((kind) => `${(bursts[kind].reduce((sum, b) => sum + b.waitedMs, 0) / 1000).toFixed(1)} s`)}`,
      mode,
    },
  ];
}

const whole = (value: number) => value.toFixed(0);
const mb = (kb: number) => (kb / 1024).toFixed(0);
const p90 = (samples: number[]) => quantile(samples, 0.9).toFixed(1);

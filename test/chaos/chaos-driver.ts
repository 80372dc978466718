/**
 * One chaos run over any platform: the real gateway process answers direct messages in many chats
 * while it is killed with SIGKILL at random moments and started again on the same
 * OPERATOR_HOME; at the end the chats are read as the platform shows them and every message's
 * answers counted (`chaos-answers.ts`). What differs per platform (how a message is delivered and
 * acknowledged, where the bot's messages are read) is a {@link ChaosPlatform}.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { chaosReply, countAnswers, tokenPattern, type Acceptance, type ChaosCount, type ChatOutcome } from './chaos-answers.ts';
import { judgePreview, notedPreviews } from './chaos-previews.ts';
import { ProcessCpu } from './process-cpu.ts';
import { between, seededRandom } from './random.ts';

/** Gateway log lines that tell of a preview or a reply gone wrong. */
const problemLine = /could not be edited|preview not finished|could not send|delivery not noted|not noted|turn failed/;

/** A bot message as the platform shows it now. */
export interface BotMessage {
  text: string;
  /** How many times the bot edited it. */
  edits: number;
  /** When the platform took it (ms since the epoch). */
  createdAt: number;
  /** Where the platform tells: when its answer to the call that sent it went out (absent: never). */
  answeredAt?: number;
  /** Where the platform tells: when the connection that call came on was opened (which process sent it; see `chaos-previews.ts`). */
  connectedAt?: number;
  /** How the gateway notes it as a preview: `<conversation id>:<message id>` (see `chaos-previews.ts`). */
  noteKey?: string;
}

/** How a message reached the gateway. */
export interface Delivery {
  /** See {@link Acceptance}: the gateway said it has it (or, on Discord, it went out on a live connection). */
  acknowledged: boolean;
  /** Discord: when it went out on a live connection (a kill right after may have come first). */
  liveAt?: number;
}

/** A platform the chaos run goes through, with the fake model and the gateway's home. */
export interface ChaosPlatform {
  readonly model: FakeModelServer;
  readonly home: string;
  /** Starts the gateway (again) on the same home; resolves once it is up. */
  start(): Promise<StartedGateway>;
  /** Told just before each kill: whatever connection is open now belongs to the process about to die. */
  killing?(): void;
  /** Has the person of chat number `chat` send `text`; the platform delivers it its own way. */
  send(chat: number, text: string, token: string): void;
  /** Whether the platform still has messages to hand over (a webhook being retried). */
  delivering(): boolean;
  /** The bot's messages in chat number `chat`, oldest first, as they stand now. */
  botMessages(chat: number): BotMessage[];
  /** A number that grows with everything the bot does on the platform. */
  activity(): number;
  /** How the message named `token` was taken, as far as the platform can tell. */
  delivery(token: string): Delivery;
  /** Deliveries the platform had to repeat (webhook retries). */
  redeliveries(): number;
  /** What went wrong in delivering, in a sentence, for the report. */
  deliveryNotes?(): string;
  /** The bot's calls, one line each, for `CHAOS_DEBUG`. */
  calls(): string[];
  /** Where the platform tells: when each of the bot's calls reached it and when its connection was opened (ms since the epoch), to tell a running process from a starved one. */
  callTimes?(): { at: number; connectedAt: number }[];
  /** Stops delivering and closes the fakes (the gateway is stopped first). */
  close(): Promise<void>;
}

/** What to run. */
export interface ChaosOptions {
  /** Telegram: webhook or long polling (ignored by the other platforms). */
  mode: 'webhook' | 'polling';
  /** Messages to send in all. */
  messages: number;
  /** Chats they are spread over. */
  chats: number;
  /** SIGKILLs while they are sent and answered. */
  kills: number;
  seed: number;
  busyMode?: 'followUp' | 'steer' | 'interrupt';
  /** Share of messages followed by one or two more in the same chat while the first is answered (default 0.25). */
  burstShare?: number;
  /** Pause between streamed pieces of an answer, ms, picked per model call in [min, max] (default [20, 70]: a turn streams 0.5–1.5 s). */
  streamDelayMs?: number | [number, number];
  /** Longest wait for the last answers once everything was sent (default 60 s). */
  settleMs?: number;
  /** Longest wait for a (re)started gateway to be up, where the platform takes it (Telegram; default 30 s). */
  startTimeoutMs?: number;
  /**
   * Where the platform does not tell when its answers went out and when the bot's calls came (see
   * `chaos-previews.ts`): how long before a kill an unfinished, never edited preview whose id the
   * gateway never noted may have been taken to count as orphaned (default 100 ms).
   */
  orphanWindowMs?: number;
}

/** What a chaos run found, and how it went. */
export interface ChaosSummary extends ChaosCount {
  /** The platform the run went through, e.g. `Telegram webhook`. */
  platform: string;
  options: ChaosOptions;
  kills: number;
  wallMs: number;
  /** Deliveries the platform repeated (the gateway down, or refusing). */
  redeliveries: number;
  /** What went wrong in delivering, as the platform tells it. */
  deliveryNotes?: string;
  /** Distinct lines of the gateway's own output about a preview or reply it could not finish (at most 10). */
  gatewayProblems: string[];
  /** Per orphaned preview: how long before its kill the platform took it (ms). */
  orphanGapsMs: number[];
  /** Discord: per lost message, how long before the next kill it went out on the live connection (ms; absent: no kill after it). */
  lostBeforeKillMs: Record<string, number>;
  /** With `CHAOS_DEBUG=1`: every chat, the bot's calls and what each gateway process printed. */
  debug?: { chats: [number, ChatOutcome][]; output: string; calls: string[] };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs one chaos run through `platform` and counts what its chats show at the end. The platform is
 * closed (and the gateway stopped) before this returns, also when it throws.
 */
export async function runChaos(name: string, platform: ChaosPlatform, options: ChaosOptions): Promise<ChaosSummary> {
  const started = performance.now();
  const random = seededRandom(options.seed);
  const modelRandom = seededRandom(options.seed ^ 0x5eed);
  const [minDelay, maxDelay] = typeof options.streamDelayMs === 'number' ? [options.streamDelayMs, options.streamDelayMs] : (options.streamDelayMs ?? [20, 70]);
  platform.model.setDefault((request) => chaosReply(request, between(modelRandom, minDelay, maxDelay)));
  writeFileSync(join(platform.home, 'operator.json'), JSON.stringify({ busyMode: options.busyMode ?? 'followUp' }));
  const chats = new Map<number, ChatOutcome>();
  const killTimes: number[] = [];
  const outputs: string[] = [];
  let gateway: StartedGateway | undefined;
  // Whether a killed process ran after the platform answered it, from its own CPU time.
  const cpu = new ProcessCpu();
  try {
    gateway = await platform.start();
    cpu.follow(gateway.child.pid!);

    // Kills at random moments while messages go out and turns stream; every other one right after
    // the bot did something (a preview sent or edited), so kills land mid-stream often. A restarted
    // process runs at least 0.3–1.5 s before the next kill, so it gets to answer some of what waited.
    const sendingMs = options.messages * 25;
    const killAt = Array.from({ length: options.kills }, () => between(random, 300, sendingMs + 2_000)).sort((a, b) => a - b);
    const killer = (async () => {
      const begin = performance.now();
      let upSince = performance.now();
      let minimumUptime = 0;
      for (const [index, at] of killAt.entries()) {
        const wait = Math.max(at - (performance.now() - begin), upSince + minimumUptime - performance.now());
        if (wait > 0) await sleep(wait);
        if (index % 2 === 1) {
          const before = platform.activity();
          const giveUp = performance.now() + 1_000;
          while (platform.activity() === before && performance.now() < giveUp) await sleep(2);
          await sleep(between(random, 0, 80));
        }
        platform.killing?.();
        cpu.sample();
        killTimes.push(Date.now());
        await gateway!.kill();
        outputs.push(gateway!.output.all());
        await sleep(between(random, 50, 400));
        gateway = await platform.start();
        cpu.follow(gateway.child.pid!);
        upSince = performance.now();
        minimumUptime = between(random, 300, 1_500);
      }
    })();

    // Messages at random intervals over random chats; a burst's follow-ups come 0.15–0.7 s after
    // the message before them, while its answer streams. One chat's messages go out in order.
    const chains = new Map<number, Promise<void>>();
    for (let index = 0; index < options.messages; ) {
      const chat = between(random, 1, options.chats);
      const burst = random() < (options.burstShare ?? 0.25) ? between(random, 2, 3) : 1;
      for (let part = 0; part < burst && index < options.messages; part++) {
        const token = `m${index++}-c${chat}`;
        const outcome = chats.get(chat) ?? { sent: [], botTexts: [] };
        outcome.sent.push(token);
        chats.set(chat, outcome);
        const pause = part === 0 ? 0 : between(random, 150, 700);
        chains.set(chat, (chains.get(chat) ?? Promise.resolve()).then(async () => {
          if (pause > 0) await sleep(pause);
          platform.send(chat, `${token} please answer`, token);
        }));
      }
      await sleep(between(random, 5, 45));
    }
    await Promise.all(chains.values());
    await killer;

    await settle(platform, chats, performance.now() + (options.settleMs ?? 60_000));
    // An unfinished, never edited preview: orphaned by a kill, or left by a fault (`chaos-previews.ts`).
    const evidence = { killTimes, noted: await notedPreviews(platform.home), callTimes: platform.callTimes?.(), windowMs: options.orphanWindowMs ?? 100, cpuUsed: (from: number, to: number) => cpu.usedBetween(from, to) };
    const orphanGapsMs: number[] = [];
    const gapToKill = (at: number) => Math.min(...killTimes.filter((kill) => kill >= at).map((kill) => kill - at));
    for (const [chat, outcome] of chats) {
      const messages = platform.botMessages(chat);
      const verdicts = messages.map((message) => (message.text.endsWith('…') && message.edits === 0 ? judgePreview(message, evidence) : undefined));
      outcome.botTexts = messages.map((message) => message.text);
      outcome.botNotes = messages.map((message, index) => `edited ${message.edits} times, ${verdicts[index]?.note ?? (Number.isFinite(gapToKill(message.createdAt)) ? `taken ${gapToKill(message.createdAt)} ms before a kill` : 'taken after the last kill')}`);
      outcome.sentAsKilled = verdicts.map((verdict) => {
        if (verdict?.orphaned) orphanGapsMs.push(verdict.gapMs);
        return verdict?.orphaned === true;
      });
    }
    const count = countAnswers(chats, { interrupted: options.busyMode === 'interrupt', acceptance: (token) => acceptanceOf(platform.delivery(token), killTimes) });
    const lostBeforeKillMs: Record<string, number> = {};
    for (const token of count.lost) {
      const { liveAt } = platform.delivery(token);
      if (liveAt !== undefined && Number.isFinite(gapToKill(liveAt))) lostBeforeKillMs[token] = gapToKill(liveAt);
    }
    // What the gateway itself said went wrong with a preview or a reply: the first clue to a dangling preview.
    const gatewayProblems = [...new Set([...outputs, gateway.output.all()].join('\n').split('\n').filter((line) => problemLine.test(line)))].slice(0, 10);
    const debug = process.env.CHAOS_DEBUG ? { chats: [...chats.entries()], output: [...outputs, gateway.output.all()].join('\n=== restart ===\n'), calls: platform.calls() } : undefined;
    return { ...count, platform: name, options, kills: killTimes.length, wallMs: Math.round(performance.now() - started), redeliveries: platform.redeliveries(), ...(platform.deliveryNotes && { deliveryNotes: platform.deliveryNotes() }), orphanGapsMs, lostBeforeKillMs, gatewayProblems, ...(debug && { debug }) };
  } finally {
    cpu.stop();
    await gateway?.stop();
    await platform.close();
  }
}

/** A Discord message that went out on a live connection this long before a kill may not have been read. */
const inFlightWindowMs = 100;

function acceptanceOf(delivery: Delivery, killTimes: readonly number[]): Acceptance {
  if (!delivery.acknowledged) return 'notAccepted';
  const { liveAt } = delivery;
  if (liveAt !== undefined && killTimes.some((kill) => kill >= liveAt && kill - liveAt <= inFlightWindowMs)) return 'inFlight';
  return 'acknowledged';
}

/**
 * Waits until the run is over: the platform has nothing left to deliver, and then nothing has
 * happened (no bot call, no model request) for a while: 2 s once every acknowledged message is
 * named by a whole answer, 8 s otherwise (a retry may be waiting). Gives up at `deadline`.
 */
async function settle(platform: ChaosPlatform, chats: ReadonlyMap<number, ChatOutcome>, deadline: number): Promise<void> {
  while (platform.delivering() && performance.now() < deadline) await sleep(100);
  let lastActivity = -1;
  let quietSince = performance.now();
  while (performance.now() < deadline) {
    const activity = platform.activity() + platform.model.requests.length;
    if (activity !== lastActivity) {
      lastActivity = activity;
      quietSince = performance.now();
    }
    const answered = [...chats].every(([chat, { sent }]) => {
      const named = new Set(platform.botMessages(chat).flatMap((message) => (message.text.endsWith('…') ? [] : (message.text.slice(0, message.text.indexOf(':')).match(tokenPattern) ?? []))));
      return sent.every((token) => named.has(token) || !platform.delivery(token).acknowledged);
    });
    if (performance.now() - quietSince > (answered ? 2_000 : 8_000)) return;
    await sleep(200);
  }
}

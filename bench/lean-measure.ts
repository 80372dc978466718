/**
 * The measurements of the lean benchmark, each on one bot process against its own fake Telegram
 * server (`lean-telegram-process.ts`): its start to the first reply, one turn, a burst of chats,
 * and its resident memory once idle. Times come from the fake's monotonic stamps; CPU and memory
 * from /proc.
 */
import { cpuMs, residentKb } from './gateway-process.ts';
import { spawnBot, type BotKind, type LeanBot, type LeanFakes } from './lean-bots.ts';
import { idleConnectionsClosed } from './lean-connections.ts';
import type { LeanTelegram, LeanTelegramServer } from './lean-telegram-process.ts';

const ms = (from: bigint, to: bigint) => Number(to - from) / 1e6;
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** A started bot with its own fake Telegram server. */
export interface Running {
  bot: LeanBot;
  server: LeanTelegramServer;
  /** The chat of the message that was waiting when it started. */
  firstChat: number;
}

/** What one start measured, in ms. */
export interface StartFigures {
  /** Spawn to the first reply's sendMessage arriving at the fake. */
  toReply: number;
  /** Spawn to the first getUpdates call arriving at the fake. */
  toPoll: number;
  /** The getUpdates answer carrying the waiting message handed to its connection, to the reply arriving. */
  updateToReply: number;
  /** Whether the bot ran compiled JavaScript. */
  compiled: boolean;
}

/**
 * Opens a fake Telegram server, queues a DM in `chat`, then spawns the bot on the Node.js binary
 * `node`: the message waits for its first getUpdates, whose answer carries it (the first answered
 * with 200).
 */
export async function start(kind: BotKind, chat: number, telegram: LeanTelegram, model: LeanFakes['model'], node: string): Promise<{ running: Running; figures: StartFigures }> {
  const server = await telegram.open();
  await server.push([chat], 'hello');
  const bot = await spawnBot(kind, { model, telegram: server }, node);
  try {
    await server.replied([chat], 30_000);
  } catch (error) {
    await bot.stop();
    await server.close();
    throw new Error(`${kind}: ${error instanceof Error ? error.message : String(error)}\n${bot.output()}`, { cause: error });
  }
  const replyAt = server.replies.get(chat)!;
  // The first getUpdates answered with 200 carries the waiting message (it was queued first).
  const delivered = server.answers.find((answer) => answer.status === 200 && answer.at <= replyAt);
  return {
    running: { bot, server, firstChat: chat },
    figures: {
      toReply: ms(bot.spawnedAt, replyAt),
      toPoll: ms(bot.spawnedAt, server.polls[0] ?? replyAt),
      updateToReply: delivered ? ms(delivered.at, replyAt) : Number.NaN,
      compiled: bot.compiled,
    },
  };
}

/** Stops the bot, then closes its server. */
export async function stop(running: Running): Promise<void> {
  await running.bot.stop();
  await running.server.close();
}

/** One message to `chat`, in ms from queueing it to the reply arriving. */
export async function turn(running: Running, chat: number, text: string): Promise<number> {
  const pushed = await running.server.push([chat], text);
  try {
    await running.server.replied([chat], 15_000);
  } catch (error) {
    throw new Error(`${running.bot.kind}: ${error instanceof Error ? error.message : String(error)}\n${running.bot.output().slice(-4_000)}`, { cause: error });
  }
  return ms(pushed, running.server.replies.get(chat)!);
}

/** What a burst measured. */
export interface BurstFigures {
  turnsPerSecond: number;
  /** The bot's CPU per turn (ms). */
  cpuPerTurn: number;
  /** From queueing to the last reply (ms). */
  wallMs: number;
  /** Waited before it for the fake to close the bot's idle connections (ms; `lean-connections.ts`). */
  waitedMs: number;
}

/**
 * Resolves once the fake has closed every connection the bot left idle, so none is closed under a
 * measured turn (see `lean-connections.ts`); with the time waited in ms.
 */
export function settled(running: Running): Promise<number> {
  return idleConnectionsClosed(running.server.apiRoot);
}

/**
 * One message in each of `chats`, all queued at once (getUpdates hands them over 100 at a time),
 * once the bot's idle connections are closed.
 */
export async function burst(running: Running, chats: readonly number[]): Promise<BurstFigures> {
  const waitedMs = await settled(running);
  const cpuBefore = cpuMs(running.bot.pid);
  const pushed = await running.server.push(chats, 'one of many at once');
  try {
    await running.server.replied(chats, 120_000);
  } catch (error) {
    const answered = chats.filter((chat) => running.server.replies.has(chat)).length;
    throw new Error(`${running.bot.kind}: ${answered} of ${chats.length} answered; ${error instanceof Error ? error.message : String(error)}\n${running.bot.output().slice(-4_000)}`, { cause: error });
  }
  const cpu = cpuMs(running.bot.pid) - cpuBefore;
  let last = pushed;
  for (const chat of chats) if (running.server.replies.get(chat)! > last) last = running.server.replies.get(chat)!;
  const wallMs = ms(pushed, last);
  return { turnsPerSecond: chats.length / (wallMs / 1000), cpuPerTurn: cpu / chats.length, wallMs, waitedMs };
}

/**
 * Resident memory (KB) once the process is idle, without forcing a GC: read every 500 ms from
 * 2 s on, until six reads in a row (3 s) are within 1% of each other while the process used at
 * most 10 ms of CPU (one clock tick) per read, or for at most 15 s. V8's memory reducer, which
 * shrinks an idle heap by itself some 15 s later, is not waited for.
 */
export async function idleResident(pid: number): Promise<{ kb: number; seconds: number }> {
  const steadyReads = 6;
  await sleep(1_500);
  const reads: number[] = [];
  let cpu = cpuMs(pid);
  let quietReads = 0;
  for (let step = 1; step <= 27; step++) {
    await sleep(500);
    const now = cpuMs(pid);
    quietReads = now - cpu <= 10 ? quietReads + 1 : 0;
    cpu = now;
    reads.push(residentKb(pid));
    const recent = reads.slice(-steadyReads);
    const steady = recent.length === steadyReads && Math.max(...recent) - Math.min(...recent) <= Math.min(...recent) * 0.01;
    if (steady && quietReads >= steadyReads) return { kb: reads.at(-1)!, seconds: 1.5 + step * 0.5 };
  }
  return { kb: reads.at(-1)!, seconds: 15 };
}

/**
 * Judging a preview left unfinished at the end of a chaos run: orphaned by a kill (the process
 * died before it could know the preview's id, which no restart can find on a platform without a
 * history the bot may read), or dangling (a fault: the gateway knew, or should have known, and no
 * restart finished it).
 *
 * What the gateway knew is read from its own records, not guessed from the clock: a preview's id
 * is noted in the inbox in the same step that reads the platform's answer (`TurnRunner`), so an id
 * found there was known. An id not found there was either never read (the process was killed, or
 * starved of CPU, before it got to the answer) or read and not noted (a fault). Where the platform
 * tells when its answer went out and when the bot's later calls came, the two are told apart: a
 * process that went on calling the platform for a while after the answer went out was running,
 * and so read it. Without those times, a preview the platform took at most `windowMs` before the
 * kill counts as orphaned. Where the gateway's own CPU time was sampled, a process counts as running
 * only if it also had `runningCpuMs` of CPU after the answer went out: on a saturated machine the
 * fake platform, starved as well, may take calls written long before the answer one by one after
 * it, so its clock alone can make a starved process look busy.
 *
 * Which process sent a call is told by its connection: one opened while a process lived is that
 * process's (they never overlap). The platform may take a call a process wrote just before its
 * kill only after the kill; such a preview belongs to the killed process, not to the next one.
 */
import { createStoreFromEnv } from '../../src/store/from-env.ts';
import type { BotMessage } from './chaos-driver.ts';

/**
 * Calls spread over at least this long after the answer went out show a process that ran long
 * enough to read it. A running process may still take a while: the answer is read over a few turns
 * of its event loop (headers, body, JSON), each queued behind every other conversation's streams
 * (runs of 24 busy chats showed 9-15 calls over 50-66 ms before the id was read).
 */
const runningSpanMs = 250;
/** ... and at least this many of them. */
const runningCalls = 3;
/**
 * ... and, where it was sampled, at least this much CPU time of the process between the answer
 * and the kill: enough event-loop turns to have read a socket that was ready all along (a healthy
 * process reads the answer within a few ms of CPU; the longest single task of a start, loading a
 * chunk of modules, takes a few tens).
 */
const runningCpuMs = 100;

/** How an unfinished, never edited preview came about. */
export type PreviewVerdict = { orphaned: true; gapMs: number; note: string } | { orphaned: false; note: string };

/** What the judgement of one preview works with. */
export interface PreviewEvidence {
  /** When the gateway was killed (ms since the epoch). */
  killTimes: readonly number[];
  /** Preview ids the gateway noted, as `<conversation id>:<message id>` (see {@link notedPreviews}). */
  noted: ReadonlySet<string>;
  /** Where the platform tells: when the bot's calls reached it, and when their connections were opened (ms since the epoch). */
  callTimes?: readonly { at: number; connectedAt: number }[];
  /** Without call times: how long before a kill a preview may have been taken to count as orphaned. */
  windowMs: number;
  /** Where it was sampled: at least how much CPU time (ms) the process alive at `to` used from `from` on (see `process-cpu.ts`). */
  cpuUsed?: (from: number, to: number) => number | undefined;
}

/** Judges `message`, an unfinished and never edited preview. */
export function judgePreview(message: BotMessage, evidence: PreviewEvidence): PreviewVerdict {
  const kills = [...evidence.killTimes].sort((a, b) => a - b);
  // The process that sent it lived when its connection was opened: the platform may take a call
  // written moments before a kill only after it, and the next kill is not that process's.
  const sentAt = message.connectedAt ?? message.createdAt;
  const kill = kills.find((at) => at >= sentAt);
  if (kill === undefined) return { orphaned: false, note: 'left after the last kill' };
  const born = kills.filter((at) => at < sentAt).at(-1) ?? Number.NEGATIVE_INFINITY;
  const gapMs = kill - message.createdAt;
  const taken = gapMs >= 0 ? `taken ${gapMs} ms before its process was killed` : `taken ${-gapMs} ms after its process was killed`;
  if (message.noteKey !== undefined && evidence.noted.has(message.noteKey)) return { orphaned: false, note: `${taken}; its id was noted, and no restart finished it` };
  if (gapMs < 0) return { orphaned: true, gapMs, note: taken };
  if (evidence.callTimes === undefined) return gapMs <= evidence.windowMs ? { orphaned: true, gapMs, note: taken } : { orphaned: false, note: `${taken}, never noted` };
  const { answeredAt } = message;
  if (answeredAt === undefined || answeredAt >= kill) return { orphaned: true, gapMs, note: `${taken}; the platform's answer never went out before the kill` };
  // The same process's later calls: on connections it opened, after the answer went out.
  const later = evidence.callTimes
    .filter((call) => call.connectedAt > born && call.connectedAt <= kill && call.at > answeredAt && call.at < kill)
    .map((call) => call.at)
    .sort((a, b) => a - b);
  const span = later.length > 0 ? later[later.length - 1]! - later[0]! : 0;
  const cpuMs = evidence.cpuUsed?.(answeredAt, kill);
  const calls = `${later.length} calls over ${span} ms${cpuMs === undefined ? '' : ` and ${cpuMs} ms of its CPU`} between the answer and the kill`;
  return later.length >= runningCalls && span >= runningSpanMs && (cpuMs === undefined || cpuMs >= runningCpuMs)
    ? { orphaned: false, note: `${taken}, never noted, though the process ran on (${calls})` }
    : { orphaned: true, gapMs, note: `${taken}; the process was not running after the answer (${calls})` };
}

/**
 * The preview ids the gateway in `home` ever noted in its inbox, as `<conversation id>:<message id>`:
 * every record of the inbox's journal logs, read through the store (records of answered messages
 * stay in the logs until they expire).
 */
export async function notedPreviews(home: string): Promise<Set<string>> {
  const store = createStoreFromEnv({ OPERATOR_HOME: home });
  const noted = new Set<string>();
  try {
    for (const key of await store.list('journal:inbox:')) {
      for (const line of await store.readLog(key)) {
        const record = parseRecord(line);
        if (record?.v?.previewId !== undefined && record.v.address?.conversationId !== undefined) noted.add(`${record.v.address.conversationId}:${record.v.previewId}`);
      }
    }
  } finally {
    await store.close();
  }
  return noted;
}

function parseRecord(line: string): { v?: { previewId?: string; address?: { conversationId?: string } } } | undefined {
  try {
    return JSON.parse(line) as { v?: { previewId?: string; address?: { conversationId?: string } } };
  } catch {
    return undefined;
  }
}

/**
 * How the chaos run's fake model answers, and how the answers are counted afterwards. Every
 * message carries a token (`m17-c3`); the model answers with `Answer to <tokens>: <filler>`, naming
 * every token of the turn's input in order (a turn may answer several messages together), so each
 * message's answers can be counted on the platform, and a half-finished one told from a whole one.
 */
import type { RecordedRequest, ReplySpec } from '../fakes/fake-model-server.ts';

/** The tokens of a message text: `m<index>-c<chat>`. */
export const tokenPattern = /\bm\d+-c\d+\b/g;

/** What follows the tokens in every answer: long enough to be previewed while it streams. */
export const filler = 'this answer streams in small pieces, so that the platform shows a preview that grows by edits before it is final.';

/** The whole answer to `tokens`. */
export function answerTo(tokens: readonly string[]): string {
  return `Answer to ${tokens.join(' ')}: ${filler}`;
}

/**
 * The text of the user messages a model request asks to answer: those after the last assistant
 * message that said something (Anthropic or OpenAI shape). A turn after one a newer message
 * stopped before it said anything answers both, as a model would.
 */
function unansweredUserText(request: RecordedRequest): string {
  const messages = (request.body?.messages ?? []) as { role: string; content: string | null | { type: string; text?: string }[] }[];
  const textOf = (content: (typeof messages)[number]['content']) =>
    content === null ? '' : typeof content === 'string' ? content : content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('\n');
  const texts: string[] = [];
  for (let index = messages.length - 1; index >= 0; index--) {
    const message = messages[index]!;
    if (message.role === 'assistant' && textOf(message.content).trim() !== '') break;
    if (message.role === 'user') texts.unshift(textOf(message.content));
  }
  return texts.join('\n');
}

/** The fake model's reply to `request`: the answer to the tokens of the messages it answers, streamed slowly. */
export function chaosReply(request: RecordedRequest, delayMs: number): ReplySpec {
  const tokens = unansweredUserText(request).match(tokenPattern) ?? [];
  const text = answerTo(tokens);
  // The header naming the messages comes in one piece: an answer stopped part way still names them.
  return { text, chunkSize: 6, firstChunkSize: text.indexOf(':') + 1, delayMs };
}

/** How the platform took a message, as far as the harness can tell from outside the gateway. */
export type Acceptance =
  /** The gateway acknowledged it (a webhook's 200, the poll offset moved past it) or, on Discord, it went out on a live connection. */
  | 'acknowledged'
  /** Never acknowledged: Slack gave up retrying, or Discord dispatched it while no gateway was connected (Discord does not replay those to a new session). */
  | 'notAccepted'
  /** Discord only: dispatched on the connection of a process killed moments later; it may never have read it (Discord has no acknowledgement). */
  | 'inFlight';

/** One conversation as the platform shows it at the end: the bot's messages, oldest first. */
export interface ChatOutcome {
  /** The tokens sent to this chat, in the order they were sent. */
  sent: string[];
  /** The final texts of the bot's messages in it, oldest first. */
  botTexts: string[];
  /**
   * Per bot message (same order): whether it is an unfinished preview the platform took moments
   * before a kill and never saw edited, so the killed process may never have heard its id back.
   */
  sentAsKilled?: boolean[];
  /** Per bot message (same order): how it came about (edits, the nearest kill), quoted beside a faulty one. */
  botNotes?: string[];
}

/** What a chaos run found. */
export interface ChaosCount {
  sent: number;
  /** Messages the gateway acknowledged (see {@link Acceptance}; on Discord: went out on a live connection, in flight at a kill included). */
  acknowledged: number;
  /** Messages answered by exactly one whole answer. */
  once: number;
  /** Acknowledged messages no whole answer names. */
  lost: string[];
  /** Messages more than one whole answer names. */
  twice: string[];
  /** Bot messages left as an unfinished preview (ending in the preview marker). */
  dangling: string[];
  /**
   * Unfinished previews the platform took moments before a kill and that were never edited: the
   * process died before it heard their id, the one window no platform lets close (see docs/storage.md).
   */
  orphaned: string[];
  /** Other bot messages that are not a whole answer (a failure notice, a partial answer, another chat's tokens). */
  other: string[];
  /** Answers a newer message stopped (`busyMode: "interrupt"`): what they had said, kept as they were. */
  stopped: number;
  /** Chats whose answers came in a different order than their messages. */
  outOfOrder: string[];
  /** Messages never acknowledged and never answered (not counted as lost). */
  notAccepted: string[];
  /** Discord: messages in flight at a kill and never answered (not counted as lost; see {@link Acceptance}). */
  inFlight: string[];
}

/** What a bot message is, read against the answers the fake model gives. */
type Reading =
  | { kind: 'whole'; tokens: string[] }
  | { kind: 'stopped'; tokens: string[] }
  | { kind: 'dangling' | 'other' };

function read(text: string, interrupted: boolean): Reading {
  const tokens = text.startsWith('Answer to ') ? (text.slice(0, text.indexOf(':')).match(tokenPattern) ?? []) : [];
  if (tokens.length > 0 && text === answerTo(tokens)) return { kind: 'whole', tokens };
  if (text.endsWith('…')) return { kind: 'dangling' };
  if (interrupted && isStoppedAnswer(text)) return { kind: 'stopped', tokens: namedInFull(text) };
  return { kind: 'other' };
}

/**
 * Counts answers per message over every chat. With `interrupted`, an answer stopped part way (a
 * beginning of a whole answer) answers the messages it names in full, but only when a later
 * answer in the chat names a message sent after them (the newer message that stopped it); one cut
 * off before it named any answers one message no other answer names. `acceptance` says how each
 * message was taken (default: every one acknowledged); only acknowledged ones can be lost.
 */
export function countAnswers(chats: ReadonlyMap<number, ChatOutcome>, options: { interrupted?: boolean; acceptance?: (token: string) => Acceptance } = {}): ChaosCount {
  const count: ChaosCount = { sent: 0, acknowledged: 0, once: 0, lost: [], twice: [], dangling: [], orphaned: [], other: [], stopped: 0, outOfOrder: [], notAccepted: [], inFlight: [] };
  const acceptance = options.acceptance ?? (() => 'acknowledged');
  for (const [chat, { sent, botTexts, sentAsKilled, botNotes }] of chats) {
    count.sent += sent.length;
    const sentAt = new Map(sent.map((token, index) => [token, index]));
    const readings = botTexts.map((text) => read(text, options.interrupted === true));
    /** Per bot message, the latest position (in `sent`) of a message it names, -1 for none. */
    const latest = readings.map((reading) => ('tokens' in reading ? Math.max(-1, ...reading.tokens.map((token) => sentAt.get(token) ?? -1)) : -1));
    const answeredAt = new Map<string, number[]>();
    const answer = (token: string, index: number) => answeredAt.set(token, [...(answeredAt.get(token) ?? []), index]);
    /** Stopped answers cut off before they named a message, by position. */
    const unnamed: number[] = [];
    readings.forEach((reading, index) => {
      const text = botTexts[index]! + (botNotes?.[index] ? ` [${botNotes[index]}]` : '');
      if ('tokens' in reading && reading.tokens.some((token) => !sentAt.has(token))) {
        count.other.push(`c${chat}: names messages not sent in this chat: ${text}`);
        return;
      }
      if (reading.kind === 'whole') reading.tokens.forEach((token) => answer(token, index));
      else if (reading.kind === 'dangling') (sentAsKilled?.[index] ? count.orphaned : count.dangling).push(`c${chat}: ${text}`);
      else if (reading.kind === 'other') count.other.push(`c${chat}: ${text}`);
      else if (reading.kind !== 'stopped') return;
      else if (!latest.slice(index + 1).some((later) => later > latest[index]!)) {
        count.other.push(`c${chat}: a partial answer no newer message's answer follows: ${text}`);
      } else {
        count.stopped++;
        if (reading.tokens.length === 0) unnamed.push(index);
        reading.tokens.forEach((token) => answer(token, index));
      }
    });
    // A stopped answer that named nobody answers the first message left unanswered before it.
    for (const position of unnamed) {
      const token = sent.find((candidate) => !answeredAt.has(candidate));
      if (token !== undefined) answeredAt.set(token, [position]);
    }
    let last = -1;
    let ordered = true;
    for (const token of sent) {
      const how = acceptance(token);
      if (how !== 'notAccepted') count.acknowledged++;
      const at = answeredAt.get(token) ?? [];
      if (at.length === 0) (how === 'acknowledged' ? count.lost : how === 'inFlight' ? count.inFlight : count.notAccepted).push(token);
      else if (at.length > 1) count.twice.push(token);
      else count.once++;
      if (at.length > 0) {
        if (at[0]! < last) ordered = false;
        last = Math.max(last, at[0]!);
      }
    }
    if (!ordered) count.outOfOrder.push(`c${chat}`);
  }
  return count;
}

/** Whether `text` is the beginning of some whole answer (an answer stopped part way). */
function isStoppedAnswer(text: string): boolean {
  if (!text.startsWith('Answer to ')) return 'Answer to '.startsWith(text) && text !== '';
  const colon = text.indexOf(':');
  if (colon < 0) return /^Answer to [\w\s-]*$/.test(text);
  return filler.startsWith(text.slice(colon + 2)) || text.slice(colon + 1).trim() === '';
}

/** The tokens a stopped answer names in full (a token cut off at its end is not one). */
function namedInFull(text: string): string[] {
  const colon = text.indexOf(':');
  const header = colon < 0 ? text : text.slice(0, colon + 1);
  return header.match(/\bm\d+-c\d+(?=[\s:])/g) ?? [];
}

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

/** One conversation as the platform shows it at the end: the bot's messages, oldest first. */
export interface ChatOutcome {
  /** The tokens sent to this chat, in the order they were sent. */
  sent: string[];
  /** The final texts of the bot's messages in it, oldest first. */
  botTexts: string[];
  /**
   * Per bot message (same order): whether the platform took it as a new message shortly before a
   * kill and it was never edited, so the killed process may never have heard its id back.
   */
  sentAsKilled?: boolean[];
}

/** What a chaos run found. */
export interface ChaosCount {
  sent: number;
  /** Messages answered by exactly one whole answer. */
  once: number;
  /** Messages no whole answer names. */
  lost: string[];
  /** Messages more than one whole answer names. */
  twice: string[];
  /** Bot messages left as an unfinished preview (ending in the preview marker). */
  dangling: string[];
  /**
   * Unfinished previews the platform took just before a kill and that were never edited: the
   * process died before it heard their id, the one window no platform lets close (see README).
   */
  orphaned: string[];
  /** Other bot messages that are not a whole answer (a failure notice, a stray part). */
  other: string[];
  /** Answers a newer message stopped (`busyMode: "interrupt"`): what they had said, kept as they were. */
  stopped: number;
  /** Chats whose answers came in a different order than their messages. */
  outOfOrder: string[];
}

/**
 * Counts answers per message over every chat. With `interrupted`, an answer stopped part way (a
 * beginning of a whole answer) answers the messages it names in full; one cut off before it named
 * any answers one message no other answer names.
 */
export function countAnswers(chats: ReadonlyMap<number, ChatOutcome>, options: { interrupted?: boolean } = {}): ChaosCount {
  const count: ChaosCount = { sent: 0, once: 0, lost: [], twice: [], dangling: [], orphaned: [], other: [], stopped: 0, outOfOrder: [] };
  for (const [chat, { sent, botTexts, sentAsKilled }] of chats) {
    count.sent += sent.length;
    const answeredAt = new Map<string, number[]>();
    /** Stopped answers cut off before they named a message, by position. */
    const unnamed: number[] = [];
    botTexts.forEach((text, index) => {
      const tokens = text.startsWith('Answer to ') ? (text.slice(0, text.indexOf(':')).match(tokenPattern) ?? []) : [];
      if (tokens.length > 0 && text === answerTo(tokens)) {
        for (const token of tokens) answeredAt.set(token, [...(answeredAt.get(token) ?? []), index]);
      } else if (text.endsWith('…')) {
        (sentAsKilled?.[index] ? count.orphaned : count.dangling).push(`c${chat}: ${text.slice(0, 40)}`);
      } else if (options.interrupted && isStoppedAnswer(text)) {
        count.stopped++;
        const named = namedInFull(text);
        if (named.length === 0) unnamed.push(index);
        for (const token of named) answeredAt.set(token, [...(answeredAt.get(token) ?? []), index]);
      } else {
        count.other.push(`c${chat}: ${text.slice(0, 60)}`);
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
      const at = answeredAt.get(token) ?? [];
      if (at.length === 0) count.lost.push(token);
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
  return (header.match(/\bm\d+-c\d+(?=[\s:])/g) ?? []);
}

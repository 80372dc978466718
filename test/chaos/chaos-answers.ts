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

/** The text of the last user message of a model request (Anthropic or OpenAI shape). */
function lastUserText(request: RecordedRequest): string {
  const messages = (request.body?.messages ?? []) as { role: string; content: string | { type: string; text?: string }[] }[];
  const last = messages.filter((message) => message.role === 'user').at(-1);
  if (!last) return '';
  return typeof last.content === 'string' ? last.content : last.content.map((part) => (part.type === 'text' ? (part.text ?? '') : '')).join('\n');
}

/** The fake model's reply to `request`: the answer to the tokens of its last user message, streamed slowly. */
export function chaosReply(request: RecordedRequest, delayMs: number): ReplySpec {
  const tokens = lastUserText(request).match(tokenPattern) ?? [];
  return { text: answerTo(tokens), chunkSize: 6, delayMs };
}

/** One conversation as the platform shows it at the end: the bot's messages, oldest first. */
export interface ChatOutcome {
  /** The tokens sent to this chat, in the order they were sent. */
  sent: string[];
  /** The final texts of the bot's messages in it, oldest first. */
  botTexts: string[];
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
  /** Other bot messages that are not a whole answer (a failure notice, a stray part). */
  other: string[];
  /** Chats whose answers came in a different order than their messages. */
  outOfOrder: string[];
}

/** Counts answers per message over every chat. */
export function countAnswers(chats: ReadonlyMap<number, ChatOutcome>): ChaosCount {
  const count: ChaosCount = { sent: 0, once: 0, lost: [], twice: [], dangling: [], other: [], outOfOrder: [] };
  for (const [chat, { sent, botTexts }] of chats) {
    count.sent += sent.length;
    const answeredAt = new Map<string, number[]>();
    botTexts.forEach((text, index) => {
      const tokens = text.startsWith('Answer to ') ? (text.slice(0, text.indexOf(':')).match(tokenPattern) ?? []) : [];
      if (tokens.length > 0 && text === answerTo(tokens)) {
        for (const token of tokens) answeredAt.set(token, [...(answeredAt.get(token) ?? []), index]);
      } else if (text.endsWith('…')) {
        count.dangling.push(`c${chat}: ${text.slice(0, 40)}`);
      } else {
        count.other.push(`c${chat}: ${text.slice(0, 60)}`);
      }
    });
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

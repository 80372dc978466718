/**
 * One answer as the OpenAI-compatible API gives it, put together from what the gateway sends the
 * conversation during the turn:
 *
 * - the streamed preview (sent, then edited, with `preview` set) grows the answer: what it holds
 *   beyond what was given already goes out as a delta; a slow provider's notice in it is not the
 *   answer (it goes out as an SSE comment);
 * - the reply the delivery ledger recorded (the message with an idempotency key) is the answer:
 *   what it holds beyond the deltas goes out last. Where the preview also showed what the model
 *   said before a tool call, which the final text does not repeat (previews show every model
 *   call's words, the final text is the last call's), the stream keeps those words and the rest
 *   of the final text follows them; a non-streamed answer is the final text alone;
 * - messages after the answer (a spending cap's warning) follow it, after a blank line;
 * - other messages during the turn (a subagent's progress, a failure told in the preview) are
 *   kept aside: the last one explains a turn that failed.
 */
import { previewMarker } from '../types.ts';

/** The answer so far of a preview's text: without the marker at its end and without its notice. */
export function answerOfPreview(text: string, notice: string | undefined): string {
  const suffix = ` ${previewMarker}`;
  let body = (text.endsWith(suffix) ? text.slice(0, -suffix.length) : text).trimEnd();
  if (notice !== undefined) {
    if (body === notice) return '';
    if (body.endsWith(`\n\n${notice}`)) body = body.slice(0, -(notice.length + 2)).trimEnd();
  }
  return body;
}

/**
 * What the final `text` adds to `given` (what the client has): its rest when it continues it;
 * else the part of it after the longest end of `given`, beginning a paragraph, that it starts
 * with; else all of it, as a paragraph of its own.
 */
export function restOf(given: string, text: string): string {
  if (text.startsWith(given)) return text.slice(given.length);
  for (let start = given.indexOf('\n\n'); start >= 0; start = given.indexOf('\n\n', start + 1)) {
    const tail = given.slice(start + 2);
    if (tail !== '' && text.startsWith(tail)) return text.slice(tail.length);
  }
  return given === '' ? text : `\n\n${text}`;
}

/** One answer being put together (see the file comment). */
export class ApiAnswer {
  /** What the client was given as content so far. */
  #given = '';
  #final: string | undefined;
  readonly #after: string[] = [];
  #aside: string | undefined;
  /** Hears each piece of content as it is given, and each notice. */
  readonly #listener: { delta(text: string): void; notice(text: string): void };

  constructor(listener: { delta(text: string): void; notice(text: string): void } = { delta() {}, notice() {} }) {
    this.#listener = listener;
  }

  /** A preview of the answer so far (`notice`: a note in it that is not the answer). */
  preview(text: string, notice: string | undefined): void {
    if (this.#final !== undefined) return;
    if (notice !== undefined) this.#listener.notice(notice);
    const answer = answerOfPreview(text, notice);
    // A preview that does not continue what was given (cut short, rewritten) adds nothing: the final text settles it.
    if (answer.startsWith(this.#given) && answer.length > this.#given.length) this.#give(answer.slice(this.#given.length));
  }

  /** The reply the delivery ledger recorded: the answer. */
  final(text: string): void {
    if (this.#final !== undefined) return this.after(text);
    this.#final = text;
    const rest = restOf(this.#given, text);
    if (rest !== '') this.#give(rest);
  }

  /** A message of the turn outside the answer: after it, it follows it; before it, it is kept aside. */
  after(text: string): void {
    if (text.trim() === '') return;
    if (this.#final === undefined) {
      this.#aside = text;
      return;
    }
    this.#after.push(text);
    this.#give(`\n\n${text}`);
  }

  /** Whether the recorded reply came. */
  get answered(): boolean {
    return this.#final !== undefined;
  }

  /** The last message kept aside (a failure told, "Stopped."), if any. */
  get aside(): string | undefined {
    return this.#aside;
  }

  /** What a non-streamed answer holds: the final text (else what was shown), then what followed it. */
  get content(): string {
    return [this.#final ?? (this.#given || this.#aside || ''), ...this.#after].join('\n\n');
  }

  #give(text: string): void {
    this.#given += text;
    this.#listener.delta(text);
  }
}

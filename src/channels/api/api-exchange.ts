/**
 * One request of the OpenAI-compatible API and its answer: the message handed to the gateway, the
 * answer put together while its turn runs (`api-answer.ts`), and how it ended. A streamed request
 * hears the answer's pieces as they come (those that came before it listened first).
 */
import type { InboundMessage } from '../types.ts';
import { ApiAnswer } from './api-answer.ts';
import type { ApiFailure } from './api-errors.ts';
import { chunkEvent, doneEvent, errorEvent, type ApiUsage, type CompletionHead } from './api-wire.ts';

/** How an exchange ended: answered (with the turn's usage), or failed. */
export type ExchangeEnd = { answered: true; usage: ApiUsage } | { answered: false; failure: ApiFailure };

/** What hears a streamed answer. */
interface AnswerSink {
  delta(text: string): void;
  notice(text: string): void;
}

/** One request and its answer. */
export class Exchange {
  readonly message: InboundMessage;
  readonly head: CompletionHead;
  /** The id of the turn answering it, as the gateway reports turns. */
  readonly turnId: string;
  /** Its turn began (the gateway said so): messages from here on are the turn's. */
  inTurn = false;
  /** The id given to the turn's preview message. */
  previewId: string | undefined;
  readonly answer: ApiAnswer;
  readonly ended: Promise<ExchangeEnd>;
  /** Resolves at the first piece of the answer (or the end). */
  readonly firstPiece: Promise<void>;
  #end: ExchangeEnd | undefined;
  #resolveEnd: (end: ExchangeEnd) => void = () => {};
  #resolveFirst: () => void = () => {};
  /** Pieces given before a sink listened, in order. */
  readonly #early: { kind: 'delta' | 'notice'; text: string }[] = [];
  #sink: AnswerSink | undefined;

  constructor(message: InboundMessage, head: CompletionHead) {
    this.message = message;
    this.head = head;
    this.turnId = `${message.dedupeKey}#0`;
    this.ended = new Promise((resolve) => (this.#resolveEnd = resolve));
    this.firstPiece = new Promise((resolve) => (this.#resolveFirst = resolve));
    this.answer = new ApiAnswer({ delta: (text) => this.#piece('delta', text), notice: (text) => this.#piece('notice', text) });
  }

  /** Whether it has ended. */
  get done(): boolean {
    return this.#end !== undefined;
  }

  /** Ends it, once. */
  end(end: ExchangeEnd): void {
    if (this.#end !== undefined) return;
    this.#end = end;
    this.#resolveFirst();
    this.#resolveEnd(end);
  }

  /** Listens to the answer's pieces: those given so far first. */
  listen(sink: AnswerSink): void {
    for (const piece of this.#early.splice(0)) sink[piece.kind](piece.text);
    this.#sink = sink;
  }

  /** Stops listening (the client went away; the turn goes on). */
  unlisten(): void {
    this.#sink = undefined;
  }

  #piece(kind: 'delta' | 'notice', text: string): void {
    if (kind === 'delta') this.#resolveFirst();
    if (this.#sink) this.#sink[kind](text);
    else this.#early.push({ kind, text });
  }
}

/** How often a streamed answer that has nothing new says it is alive (proxies close silent connections). */
const keepAliveMs = 15_000;

/**
 * The streamed answer of `exchange` as Server-Sent Events: a first chunk with the role, a chunk
 * per delta, a notice (the provider is slow) as an SSE comment, and at the end the finish chunk,
 * the usage chunk (`includeUsage`) and `[DONE]`, or an error event when the turn failed.
 */
export function streamedAnswer(exchange: Exchange, includeUsage: boolean): Response {
  const { head } = exchange;
  const encoder = new TextEncoder();
  let timer: ReturnType<typeof setInterval> | undefined;
  let open = true;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      // What is written in one turn of the event loop goes out as one chunk: the role and the first
      // words (already there when the headers go), or the finish, the usage and `[DONE]`, are one
      // write to the socket and one read for the caller, not three.
      let pending = '';
      const flush = () => {
        const text = pending;
        pending = '';
        if (!open || text === '') return;
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          open = false;
        }
      };
      const write = (text: string) => {
        if (!open) return;
        if (pending === '') queueMicrotask(flush);
        pending += text;
      };
      let lastNotice: string | undefined;
      write(chunkEvent(head, { delta: { role: 'assistant', content: '' } }));
      exchange.listen({
        delta: (text) => write(chunkEvent(head, { delta: { content: text } })),
        notice: (text) => {
          if (text === lastNotice) return;
          lastNotice = text;
          write(`: ${text.replace(/\s+/g, ' ')}\n\n`);
        },
      });
      timer = setInterval(() => write(': keep-alive\n\n'), keepAliveMs);
      timer.unref?.();
      void exchange.ended.then((end) => {
        clearInterval(timer);
        if (end.answered) {
          write(chunkEvent(head, { delta: {}, finish: 'stop' }));
          if (includeUsage) write(chunkEvent(head, { usage: end.usage }));
          write(doneEvent);
        } else write(errorEvent(end.failure));
        flush();
        if (open) controller.close();
        open = false;
      });
    },
    cancel() {
      open = false;
      clearInterval(timer);
      exchange.unlisten();
    },
  });
  return new Response(body, { headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-accel-buffering': 'no' } });
}

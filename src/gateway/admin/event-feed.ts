/**
 * The console's live feed: the gateway's events (`gateway.ops`) as Server-Sent Events, each an
 * `ops` event whose data is the event as JSON, the latest ones first (marked `replayed`), then
 * whatever happens while the page is open. Events carry identifiers, counts and reasons, never
 * what people wrote; the text is scrubbed of secrets once more on the way out. A page that stops
 * reading is dropped rather than buffered for without end, and so are pages beyond a limit.
 */
import type { OpsEvents, OpsRecord } from '../ops/ops-events.ts';
import type { RecentEvents } from './recent-events.ts';

/** Options of {@link EventFeed}. */
export interface EventFeedOptions {
  ops: OpsEvents;
  recent: RecentEvents;
  /** Applied to every event's JSON before it leaves. */
  scrub: (text: string) => string;
  /** Open feeds at most (default 20); more are refused with 503. */
  maxFeeds?: number;
  /** Bytes a page may fall behind before it is dropped (default 1 MiB). */
  maxQueuedBytes?: number;
  /** Time between keep-alive comments (default 25 s). */
  heartbeatMs?: number;
}

const encoder = new TextEncoder();

/** Opens feeds over one event stream. */
export class EventFeed {
  readonly #options: EventFeedOptions;
  #open = 0;

  constructor(options: EventFeedOptions) {
    this.#options = options;
  }

  /** Feeds open now. */
  get size(): number {
    return this.#open;
  }

  /** A feed until `signal` aborts (the page went away) or the page stops reading. */
  open(signal: AbortSignal): Response {
    const maxFeeds = this.#options.maxFeeds ?? 20;
    if (this.#open >= maxFeeds) return Response.json({ error: `too many open event feeds (${maxFeeds}); close a console tab` }, { status: 503 });
    const maxQueued = this.#options.maxQueuedBytes ?? 1024 * 1024;
    let close = () => {};
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          let closed = false;
          const write = (text: string) => {
            if (closed) return;
            if ((controller.desiredSize ?? 0) < -maxQueued) return close();
            try {
              controller.enqueue(encoder.encode(text));
            } catch {
              close();
            }
          };
          const send = (record: OpsRecord, replayed: boolean) => write(`event: ops\ndata: ${this.#options.scrub(JSON.stringify(replayed ? { ...record, replayed } : record))}\n\n`);
          const unsubscribe = this.#options.ops.subscribe((record) => send(record, false));
          const heartbeat = setInterval(() => write(': heartbeat\n\n'), this.#options.heartbeatMs ?? 25_000);
          heartbeat.unref();
          this.#open++;
          close = () => {
            if (closed) return;
            closed = true;
            this.#open--;
            unsubscribe();
            clearInterval(heartbeat);
            try {
              controller.close();
            } catch {
              // Already closed or cancelled by the peer.
            }
          };
          write('retry: 3000\n\n');
          for (const record of this.#options.recent.list()) send(record, true);
          write('event: ready\ndata: {}\n\n');
        },
        cancel: () => close(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
    );
    if (signal.aborted) close();
    else signal.addEventListener('abort', () => close(), { once: true });
    return new Response(stream, {
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache, no-transform', 'x-accel-buffering': 'no' },
    });
  }
}

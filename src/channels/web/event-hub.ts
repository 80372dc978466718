/**
 * The open Server-Sent Events connections of the web chat, per client id. Events for a client
 * go to every page it has open; while it has none, messages, edits, files and notices wait in a
 * small per-client buffer that is flushed on the next connection. Every bound is explicit: events
 * per client, clients with a buffer, bytes queued for a page that stopped reading.
 */
import { formatEvent, heartbeatComment } from './web-events.ts';
import type { BufferableEvent, WebEvent } from './web-events.ts';

/** Limits of an {@link EventHub}. */
export interface EventHubOptions {
  /** Interval of the heartbeat comment on open streams. */
  heartbeatMs: number;
  /** Events kept per disconnected client; the oldest go first. */
  bufferLimit: number;
  /** Disconnected clients whose buffer is kept; the least recently active go first. */
  maxBufferedClients: number;
  /** A page that leaves this many bytes unread is disconnected (its browser reconnects). */
  maxQueuedBytes: number;
}

interface Connection {
  readonly clientId: string;
  write(text: string): void;
  close(): void;
}

interface ClientState {
  connections: Set<Connection>;
  pending: BufferableEvent[];
}

const encoder = new TextEncoder();

/** Per-client SSE connections with buffering while disconnected. */
export class EventHub {
  readonly #options: EventHubOptions;
  readonly #clients = new Map<string, ClientState>();
  #heartbeat: ReturnType<typeof setInterval> | undefined;
  #openConnections = 0;

  constructor(options: EventHubOptions) {
    this.#options = options;
  }

  /**
   * Opens an event stream for `clientId`: a `ready` event, then whatever was buffered, then live
   * events. The connection is dropped when `signal` aborts or the peer stops reading.
   */
  open(clientId: string, signal: AbortSignal): Response {
    let connection: Connection | undefined;
    const stream = new ReadableStream<Uint8Array>(
      {
        start: (controller) => {
          let closed = false;
          const current: Connection = {
            clientId,
            write: (text) => {
              if (closed) return;
              if ((controller.desiredSize ?? 0) < -this.#options.maxQueuedBytes) {
                current.close();
                return;
              }
              try {
                controller.enqueue(encoder.encode(text));
              } catch {
                current.close();
              }
            },
            close: () => {
              if (closed) return;
              closed = true;
              this.#detach(current);
              try {
                controller.close();
              } catch {
                // Already closed or cancelled by the peer.
              }
            },
          };
          connection = current;
        },
        cancel: () => connection?.close(),
      },
      new ByteLengthQueuingStrategy({ highWaterMark: 64 * 1024 }),
    );
    // `start` ran synchronously inside the constructor.
    const opened = connection as Connection | undefined;
    if (opened) {
      if (signal.aborted) opened.close();
      else {
        signal.addEventListener('abort', () => opened.close(), { once: true });
        this.#attach(opened);
      }
    }
    return new Response(stream, {
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        'x-accel-buffering': 'no',
      },
    });
  }

  /** Sends an event to the client's open pages; buffers messages, edits, files and notices otherwise. */
  publish(clientId: string, event: WebEvent): void {
    const state = this.#clients.get(clientId);
    if (state && state.connections.size > 0) {
      const text = formatEvent(event);
      for (const connection of [...state.connections]) connection.write(text);
      return;
    }
    if (event.type === 'message' || event.type === 'update' || event.type === 'file' || event.type === 'notice') this.#buffer(clientId, event);
  }

  /** Open connections of one client, or of all clients. */
  connectionCount(clientId?: string): number {
    if (clientId === undefined) return this.#openConnections;
    return this.#clients.get(clientId)?.connections.size ?? 0;
  }

  /** Events waiting for a client to connect. */
  bufferedCount(clientId: string): number {
    return this.#clients.get(clientId)?.pending.length ?? 0;
  }

  /** Ends every stream and forgets every buffer. */
  closeAll(): void {
    for (const state of [...this.#clients.values()]) for (const connection of [...state.connections]) connection.close();
    this.#clients.clear();
    this.#stopHeartbeat();
  }

  #attach(connection: Connection): void {
    const state = this.#touch(connection.clientId);
    state.connections.add(connection);
    this.#openConnections++;
    this.#startHeartbeat();
    connection.write('retry: 1000\n\n');
    connection.write(formatEvent({ type: 'ready' }));
    for (const event of state.pending.splice(0)) connection.write(formatEvent({ ...event, buffered: true }));
  }

  #detach(connection: Connection): void {
    const state = this.#clients.get(connection.clientId);
    if (!state?.connections.delete(connection)) return;
    this.#openConnections--;
    if (state.connections.size === 0 && state.pending.length === 0) this.#clients.delete(connection.clientId);
    if (this.#openConnections === 0) this.#stopHeartbeat();
  }

  /** The client's state, moved to the most recently active end of the map. */
  #touch(clientId: string): ClientState {
    const state = this.#clients.get(clientId) ?? { connections: new Set(), pending: [] };
    this.#clients.delete(clientId);
    this.#clients.set(clientId, state);
    return state;
  }

  #buffer(clientId: string, event: BufferableEvent): void {
    const state = this.#touch(clientId);
    const { pending } = state;
    if (event.type === 'update') {
      // A streamed reply is a burst of edits: keep only its latest text.
      const earlier = pending.find((item) => (item.type === 'message' || item.type === 'update') && item.id === event.id);
      if (earlier && (earlier.type === 'message' || earlier.type === 'update')) {
        // An edit replaces the buttons too (none given: none shown), as on Telegram.
        earlier.text = event.text;
        earlier.html = event.html;
        if (event.buttons === undefined) delete earlier.buttons;
        else earlier.buttons = event.buttons;
        return;
      }
    }
    pending.push({ ...event });
    if (pending.length > this.#options.bufferLimit) pending.splice(0, pending.length - this.#options.bufferLimit);
    this.#evictIdleClients();
  }

  #evictIdleClients(): void {
    let idle = 0;
    for (const state of this.#clients.values()) if (state.connections.size === 0) idle++;
    let excess = idle - this.#options.maxBufferedClients;
    for (const [clientId, state] of this.#clients) {
      if (excess <= 0) break;
      if (state.connections.size > 0) continue;
      this.#clients.delete(clientId);
      excess--;
    }
  }

  #startHeartbeat(): void {
    if (this.#heartbeat) return;
    this.#heartbeat = setInterval(() => {
      for (const state of [...this.#clients.values()]) for (const connection of [...state.connections]) connection.write(heartbeatComment);
    }, this.#options.heartbeatMs);
    this.#heartbeat.unref();
  }

  #stopHeartbeat(): void {
    clearInterval(this.#heartbeat);
    this.#heartbeat = undefined;
  }
}

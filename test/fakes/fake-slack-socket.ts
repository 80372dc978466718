/**
 * Socket Mode on the fake Slack, on the same port as its Web API. `apps.connections.open`,
 * authorised with the app-level token only (a bot token gets `not_allowed_token_type`, as does
 * the app token on any other method), answers a one-use `ws://…/link/?ticket=…` URL. On connect
 * the fake says `hello`; then the test delivers envelopes (`events_api`, `interactive`,
 * `slash_commands`) built from the usual request builders, sees the app's acknowledgements
 * (`{ envelope_id, payload? }`), redelivers an envelope with `retry_attempt + 1`, asks the app to
 * reconnect with a `disconnect` message, or drops the socket.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { SlackRequest } from './fake-slack-events.ts';
import type { SlackAnswer } from './fake-slack-methods.ts';
import type { FakeSlackState } from './fake-slack-state.ts';

/** The fake's app-level token (`xapp-…`, Basic Information > App-Level Tokens). */
export const fakeAppToken = 'xapp-1-A0APP0001-1760000000000-FakeAppTokenForTests0123456789';

/** An envelope as Slack sends it over the socket. */
export interface FakeSocketEnvelope {
  envelope_id: string;
  type: 'events_api' | 'interactive' | 'slash_commands';
  payload: Record<string, unknown>;
  accepts_response_payload: boolean;
  /** Events only: 0 on the first delivery, then 1, 2, … */
  retry_attempt?: number;
  retry_reason?: string;
}

/** An acknowledgement the app sent. */
export interface FakeSocketAck {
  envelopeId: string;
  /** The answer it carried (a slash command's ephemeral reply), if any. */
  payload?: Record<string, unknown>;
  /** The connection it came on (its index in `connections`). */
  connection: number;
}

/** One websocket connection of the app. */
export interface FakeSocketConnection {
  /** The `ws://` URL it was opened with. */
  url: string;
  /** Open (and greeted with `hello`, unless it was held back). */
  open: boolean;
  /** `hello` was sent. */
  greeted: boolean;
  /** `disconnect` messages sent on it. */
  disconnects: string[];
}

/** The Socket Mode side of a fake Slack (`slack.socket`). */
export interface FakeSlackSocket {
  readonly appToken: string;
  /** Every connection the app opened, oldest first. */
  readonly connections: readonly FakeSocketConnection[];
  readonly delivered: readonly FakeSocketEnvelope[];
  readonly acks: readonly FakeSocketAck[];
  /** The app's acknowledgement of an envelope, once it came. */
  acked(envelopeId: string): FakeSocketAck | undefined;
  /** Sends a request built by `envelope`, `blockAction` or `slashCommand` as an envelope on the newest open connection. */
  deliver(request: SlackRequest): FakeSocketEnvelope;
  /** Sends an (unacknowledged) events envelope again, with `retry_attempt + 1`, as Slack does. */
  redeliver(envelope: FakeSocketEnvelope, reason?: string): FakeSocketEnvelope;
  /** Asks the app to reconnect on its newest open connection. */
  disconnect(reason: 'refresh_requested' | 'warning' | 'link_disabled'): void;
  /** Ends the newest open connection without a close handshake (a dropped socket). */
  drop(): void;
  /** The next connection gets no `hello` (it stays in the middle of being set up). */
  holdHello(): void;
}

/** What the fake server uses: the socket controls plus the Web API's app-token method. */
export interface FakeSocketMode extends FakeSlackSocket {
  /** Slack's answer to a call made with the app token, or to `apps.connections.open` with any token. */
  appMethod(method: string, token: string): SlackAnswer;
  close(): void;
}

/** The body of an envelope for a request the app would otherwise receive over HTTP. */
function envelopeBody(request: SlackRequest): Pick<FakeSocketEnvelope, 'type' | 'payload' | 'accepts_response_payload'> {
  if (request.kind === 'json') return { type: 'events_api', payload: request.body, accepts_response_payload: false };
  if (request.fields.payload !== undefined) return { type: 'interactive', payload: JSON.parse(request.fields.payload) as Record<string, unknown>, accepts_response_payload: false };
  return { type: 'slash_commands', payload: { ...request.fields }, accepts_response_payload: true };
}

/** Adds Socket Mode to the fake's HTTP `server`; `origin` is its `http://127.0.0.1:<port>`. */
export function attachFakeSocketMode(server: Server, state: FakeSlackState, origin: () => string): FakeSocketMode {
  const webSockets = new WebSocketServer({ noServer: true });
  const tickets = new Set<string>();
  const sockets: WebSocket[] = [];
  const connections: FakeSocketConnection[] = [];
  const delivered: FakeSocketEnvelope[] = [];
  const acks: FakeSocketAck[] = [];
  let helloHeld = false;

  function newest(): { socket: WebSocket; connection: FakeSocketConnection } {
    for (let index = connections.length - 1; index >= 0; index -= 1) {
      if (connections[index]!.open) return { socket: sockets[index]!, connection: connections[index]! };
    }
    throw new Error('fake Slack: no open Socket Mode connection');
  }

  function send(envelope: FakeSocketEnvelope): FakeSocketEnvelope {
    newest().socket.send(JSON.stringify(envelope));
    delivered.push(envelope);
    state.notify();
    return envelope;
  }

  function accept(socket: WebSocket, url: string): void {
    const index = connections.length;
    const connection: FakeSocketConnection = { url, open: true, greeted: !helloHeld, disconnects: [] };
    helloHeld = false;
    sockets.push(socket);
    connections.push(connection);
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { envelope_id?: unknown; payload?: Record<string, unknown> };
      if (typeof message.envelope_id !== 'string') return;
      const payload = message.payload && Object.keys(message.payload).length > 0 ? message.payload : undefined;
      acks.push({ envelopeId: message.envelope_id, connection: index, ...(payload ? { payload } : {}) });
      state.notify();
    });
    socket.on('close', () => {
      connection.open = false;
      state.notify();
    });
    const open = connections.filter((candidate) => candidate.open).length;
    if (connection.greeted) socket.send(JSON.stringify({
      type: 'hello',
      num_connections: open,
      debug_info: { host: 'applink-fake-1', build_number: 1, approximate_connection_time: 18060 },
      connection_info: { app_id: state.bot.appId },
    }));
    state.notify();
  }

  // Slack's socket URLs carry a one-use ticket: a reconnect has to open a new URL.
  server.on('upgrade', (request: IncomingMessage, stream: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', origin());
    const ticket = url.searchParams.get('ticket') ?? '';
    if (url.pathname !== '/link/' || !tickets.delete(ticket)) {
      stream.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    webSockets.handleUpgrade(request, stream, head, (socket) => accept(socket, url.href.replace(/^http/, 'ws')));
  });

  return {
    appToken: fakeAppToken,
    connections,
    delivered,
    acks,
    acked: (envelopeId) => acks.find((ack) => ack.envelopeId === envelopeId),
    deliver: (request) => send({ envelope_id: randomUUID(), ...envelopeBody(request), ...(request.kind === 'json' ? { retry_attempt: 0, retry_reason: '' } : {}) }),
    redeliver: (envelope, reason = 'timeout') => send({ ...envelope, envelope_id: randomUUID(), retry_attempt: (envelope.retry_attempt ?? 0) + 1, retry_reason: reason }),
    disconnect(reason) {
      const { socket, connection } = newest();
      socket.send(JSON.stringify({ type: 'disconnect', reason, debug_info: { host: 'applink-fake-1' } }));
      connection.disconnects.push(reason);
      state.notify();
    },
    drop() {
      newest().socket.terminate();
    },
    holdHello() {
      helloHeld = true;
    },
    appMethod(method, token) {
      if (token !== fakeAppToken) return { ok: false, error: token === state.bot.token ? 'not_allowed_token_type' : 'invalid_auth' };
      if (method !== 'apps.connections.open') return { ok: false, error: 'not_allowed_token_type' };
      const ticket = randomUUID();
      tickets.add(ticket);
      return { ok: true, url: `${origin().replace(/^http/, 'ws')}/link/?ticket=${ticket}&app_id=${state.bot.appId}` };
    },
    close() {
      for (const socket of sockets) socket.terminate();
      webSockets.close();
    },
  };
}

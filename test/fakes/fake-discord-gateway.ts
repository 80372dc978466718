/**
 * The fake Discord gateway on `ws` (JSON encoding, no compression): HELLO on connect, IDENTIFY
 * answered by READY (guilds unavailable) and a GUILD_CREATE per guild, heartbeats acknowledged,
 * RESUME replaying the dispatches the session missed and then RESUMED, INVALID_SESSION for an
 * unknown session. Dispatches carry increasing sequence numbers per session and honour the
 * session's intents (guild and DM messages, the Message Content intent).
 */
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';

/** What the gateway needs from the rest of the fake. */
export interface GatewayWorld {
  token: string;
  /** The READY payload's `d` for a new session (without `session_id` and `resume_gateway_url`). */
  ready(): Record<string, unknown>;
  /** The GUILD_CREATE payloads sent after READY. */
  guildCreates(): Record<string, unknown>[];
  /** Whether privileged intents (Message Content) are enabled for the bot in the portal. */
  messageContentAllowed: boolean;
  notify(): void;
}

/** One gateway session (it outlives its connection, for RESUME). */
export interface GatewaySession {
  id: string;
  intents: number;
  sequence: number;
  /** Dispatches sent, for replay on RESUME (the newest 500). */
  sent: { s: number; t: string; d: unknown }[];
  socket: WebSocket | undefined;
  /** False once the client closed with 1000/1001 (Discord then ends the session) or it was invalidated. */
  resumable: boolean;
}

/** Gateway intents the fake checks. */
export const intentBits = { guilds: 1 << 0, guildMessages: 1 << 9, directMessages: 1 << 12, messageContent: 1 << 15 };

interface Frame {
  op: number;
  d?: unknown;
  s?: number | null;
  t?: string | null;
}

/** The gateway of one fake Discord. */
export class FakeGateway {
  readonly sessions = new Map<string, GatewaySession>();
  /** Every frame a client sent (heartbeats included), for tests of the protocol. */
  readonly received: Frame[] = [];
  readonly #server = new WebSocketServer({ noServer: true });
  readonly #world: GatewayWorld;
  readonly #heartbeatIntervalMs: number;
  readonly #origin: () => string;

  constructor(world: GatewayWorld, options: { heartbeatIntervalMs: number; origin: () => string }) {
    this.#world = world;
    this.#heartbeatIntervalMs = options.heartbeatIntervalMs;
    this.#origin = options.origin;
  }

  /** Takes an HTTP upgrade on the gateway path. */
  upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    this.#server.handleUpgrade(request, socket, head, (connection) => this.#accept(connection));
  }

  /** The sessions with an open connection. */
  connected(): GatewaySession[] {
    return [...this.sessions.values()].filter((session) => session.socket?.readyState === 1);
  }

  /**
   * Sends a dispatch to every live session whose intents let it see the event; a session that is
   * disconnected but resumable keeps it for the replay on RESUME, as Discord does.
   */
  dispatch(t: string, d: unknown, filter: (session: GatewaySession) => unknown = () => d): void {
    for (const session of this.sessions.values()) {
      if (!session.resumable) continue;
      const payload = filter(session);
      if (payload !== undefined) this.#send(session, t, payload);
    }
  }

  /** Closes every connection with `code` (4000 and the like let the client resume). */
  disconnect(code: number): void {
    for (const session of this.connected()) session.socket!.close(code, 'fake gateway disconnect');
  }

  /** Ends every connection at once (server shutdown). */
  close(): void {
    for (const client of this.#server.clients) client.terminate();
    this.#server.close();
  }

  #send(session: GatewaySession, t: string, d: unknown): void {
    session.sequence += 1;
    session.sent.push({ s: session.sequence, t, d });
    if (session.sent.length > 500) session.sent.shift();
    if (session.socket?.readyState === 1) session.socket.send(JSON.stringify({ op: 0, s: session.sequence, t, d }));
    this.#world.notify();
  }

  #accept(connection: WebSocket): void {
    let session: GatewaySession | undefined;
    connection.send(JSON.stringify({ op: 10, d: { heartbeat_interval: this.#heartbeatIntervalMs }, s: null, t: null }));
    connection.on('message', (raw) => {
      let frame: Frame;
      try {
        frame = JSON.parse(String(raw)) as Frame;
      } catch {
        connection.close(4002, 'Error while decoding payload.');
        return;
      }
      this.received.push(frame);
      this.#world.notify();
      if (frame.op === 1) return connection.send(JSON.stringify({ op: 11, s: null, t: null, d: null }));
      if (frame.op === 2) {
        if (session) return connection.close(4005, 'Already authenticated.');
        session = this.#identify(connection, frame.d as { token: string; intents: number });
        return;
      }
      if (frame.op === 6) {
        session = this.#resume(connection, frame.d as { token: string; session_id: string; seq: number });
        return;
      }
      if (!session) connection.close(4003, 'Not authenticated.');
    });
    connection.on('close', (code) => {
      if (session?.socket === connection) {
        session.socket = undefined;
        if (code === 1000 || code === 1001) session.resumable = false;
      }
      this.#world.notify();
    });
  }

  #identify(connection: WebSocket, identify: { token: string; intents: number }): GatewaySession | undefined {
    if (identify.token !== this.#world.token) {
      connection.close(4004, 'Authentication failed.');
      return undefined;
    }
    if ((identify.intents & intentBits.messageContent) !== 0 && !this.#world.messageContentAllowed) {
      connection.close(4014, 'Disallowed intent(s).');
      return undefined;
    }
    const session: GatewaySession = { id: `session-${this.sessions.size + 1}-${Date.now()}`, intents: identify.intents, sequence: 0, sent: [], socket: connection, resumable: true };
    this.sessions.set(session.id, session);
    const resumeUrl = `${this.#origin().replace(/^http/, 'ws')}/gateway`;
    this.#send(session, 'READY', { ...this.#world.ready(), session_id: session.id, resume_gateway_url: resumeUrl, shard: [0, 1] });
    if ((identify.intents & intentBits.guilds) !== 0) {
      for (const guild of this.#world.guildCreates()) this.#send(session, 'GUILD_CREATE', guild);
    }
    return session;
  }

  #resume(connection: WebSocket, resume: { token: string; session_id: string; seq: number }): GatewaySession | undefined {
    const session = this.sessions.get(resume.session_id);
    if (resume.token !== this.#world.token) {
      connection.close(4004, 'Authentication failed.');
      return undefined;
    }
    if (!session || !session.resumable || (session.sent[0] && session.sent[0].s > resume.seq + 1)) {
      connection.send(JSON.stringify({ op: 9, d: false, s: null, t: null }));
      return undefined;
    }
    session.socket?.terminate();
    session.socket = connection;
    for (const missed of session.sent.filter((entry) => entry.s > resume.seq)) {
      connection.send(JSON.stringify({ op: 0, s: missed.s, t: missed.t, d: missed.d }));
    }
    this.#send(session, 'RESUMED', null);
    return session;
  }
}

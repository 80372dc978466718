/**
 * Socket Mode: events, button presses and slash commands arrive over a websocket the adapter
 * opens (`apps.connections.open` with the app-level token, then `wss://…`) instead of HTTP posts,
 * so no route is mounted. `@slack/socket-mode`'s `SocketModeClient` keeps the connection: it
 * opens a new URL when Slack asks (`disconnect`) or the socket drops, and pings. Each envelope
 * goes to the same bolt app as in HTTP mode, through {@link dispatchEnvelope}, which decides when
 * it is acknowledged; bolt's own SocketModeReceiver is not used because it acknowledges events
 * before the listeners ran.
 *
 * The socket is the link to Slack: its closing while the adapter runs (dropped, a pong missed,
 * or Slack's `disconnect` asking for a new one) counts as the link lost, the next `hello` as the
 * link back, each once however many attempts the SDK needs in between.
 */
import type { App } from '@slack/bolt';
import { SocketModeClient } from '@slack/socket-mode';
import type { LinkStatus } from '../link-status.ts';
import type { OutsideErrors } from '../outside-errors.ts';
import { createBoltLogger } from './bolt-logger.ts';
import { guardSocketFrames } from './guarded-socket.ts';
import { rateLimitReportingFetch } from './rate-limit-fetch.ts';
import { toDeliveryError, type Scrub } from './slack-errors.ts';
import { dispatchEnvelope, type SocketEnvelope } from './socket-mode-dispatch.ts';

/** Options of {@link createSocketMode}. */
export interface SocketModeOptions {
  /** The app-level token (`xapp-…`, with the `connections:write` scope). Never logged. */
  appToken: string;
  /** The Web API base `apps.connections.open` is called at. */
  slackApiUrl: string;
  /** How long one `apps.connections.open` call may take, in ms. */
  timeoutMs: number;
  /**
   * How long a pong from Slack may take before the socket counts as dead (the SDK's
   * `clientPingTimeout`, default 5,000). The SDK also waits this long (times the consecutive
   * failures) before it reconnects.
   */
  pingTimeoutMs?: number;
  /** The bolt app while the adapter runs, else undefined (envelopes are then not acknowledged). */
  app(): App | undefined;
  log(line: string): void;
  scrub: Scrub;
  /** Told when the socket drops and is back, and of 429s to `apps.connections.open`. */
  link: LinkStatus;
  /** Where a frame or envelope whose handling threw is reported (see `guarded-socket.ts`). */
  outside: OutsideErrors;
}

/** A Socket Mode connection to Slack. */
export interface SocketMode {
  /** Opens the socket; resolves once Slack said `hello`. Rejects with a scrubbed `DeliveryError`. */
  start(): Promise<void>;
  /** Closes the socket (no reconnect); resolves once it is closed. */
  stop(): Promise<void>;
}

/** One `SocketModeClient` and where its connection stands. */
interface Connection {
  client: SocketModeClient;
  /** The current connection attempt waits for Slack's `hello`. */
  awaitingHello: boolean;
  /** stop() was called (or start() failed): nothing may stay open. */
  stopped: boolean;
}

/** App-level tokens start `xapp-`; any other token is refused by `apps.connections.open`. */
const appTokenShape = /^xapp-/;

/**
 * Creates the Socket Mode connection (not yet opened). Throws when `appToken` is not an
 * app-level token: the SDK would otherwise retry `not_allowed_token_type` forever.
 */
export function createSocketMode(options: SocketModeOptions): SocketMode {
  if (!appTokenShape.test(options.appToken)) throw new Error('slack: appToken must be an app-level token (xapp-…) for Socket Mode');
  const { log, scrub, link } = options;
  const reportingFetch = rateLimitReportingFetch((waitMs) => link.rateLimited(waitMs));
  const logger = createBoltLogger(log, scrub);
  logger.setName('socket-mode');
  let current: Connection | undefined;

  return {
    async start() {
      const client = new SocketModeClient({
        appToken: options.appToken,
        logger,
        // No retryConfig: the SDK's own (many quick retries) is what keeps reconnecting alive.
        clientOptions: { slackApiUrl: options.slackApiUrl, timeout: options.timeoutMs, fetch: reportingFetch },
        ...(options.pingTimeoutMs !== undefined ? { clientPingTimeout: options.pingTimeoutMs } : {}),
      });
      const connection: Connection = { client, awaitingHello: false, stopped: false };
      // A frame the SDK cannot read must not end the process: see `guarded-socket.ts`.
      guardSocketFrames(client, options.outside);
      client.on('slack_event', (envelope: SocketEnvelope) => {
        void dispatchEnvelope(options.app(), envelope, { log, scrub, outside: options.outside }).catch((error: unknown) => options.outside.report(envelope.type, error));
      });
      client.on('connecting', () => (connection.awaitingHello = true));
      client.on('disconnected', () => (connection.awaitingHello = false));
      client.on('connected', () => {
        connection.awaitingHello = false;
        // After stop(), a connection that was still being set up is closed as soon as it is up.
        // Not within this emit: the SDK's own 'connected' listener, which settles its start(),
        // runs after this one, and a disconnect can fire 'disconnected' synchronously.
        if (connection.stopped) queueMicrotask(() => void client.disconnect());
        else link.restored();
      });
      // The SDK's 'close' is the socket going away, whoever closed it; it reconnects on its own
      // ('disconnected' comes only from disconnect(), that is from stop()).
      client.on('close', () => {
        if (!connection.stopped) link.lost('Socket Mode connection closed; reconnecting');
      });
      current = connection;
      try {
        await client.start();
      } catch (error) {
        connection.stopped = true;
        if (current === connection) current = undefined;
        await client.disconnect();
        throw toDeliveryError(error, 'apps.connections.open', scrub);
      }
    },

    async stop() {
      const connection = current;
      current = undefined;
      if (!connection) return;
      connection.stopped = true;
      const { client } = connection;
      const closed = new Promise<void>((resolve) => client.once('disconnected', () => resolve()));
      // A reconnect of the SDK waits for `hello` on a promise nobody catches, which a disconnect
      // now would reject (an unhandled rejection, fatal in Node). Settling it first lets the
      // 'connected' listener above close the socket instead.
      if (connection.awaitingHello) client.emit('connected');
      else void client.disconnect();
      await closed;
    },
  };
}

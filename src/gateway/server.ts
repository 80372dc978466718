/**
 * The gateway's HTTP server (hono on @hono/node-server): `GET /healthz`, `GET /readyz`, and every
 * route the adapters mount (webhooks, the web chat). The server listens before the channels start
 * (a webhook needs it), so both answer 200 only once the gateway says it is ready, and 503 while
 * it is starting or stopping, or while the store fails (a full or read-only disk, Redis gone):
 * messages are then not taken, and a load balancer should send them elsewhere.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Context, MiddlewareHandler } from 'hono';
// The tiny preset (PatternRouter): the routes are a handful of fixed paths, and it loads a third
// fewer modules than the default preset's RegExpRouter and TrieRouter, before the gateway is ready.
import { Hono } from 'hono/tiny';
import type { ChannelAdapter, ChannelRoute, RouteConnection } from '../channels/types.ts';
import type { JournalDamageSummary, StoreHealthSummary } from './health/store-health.ts';
import { hostAndPort } from './http/listen-address.ts';
import { clientAddress, isHttps, localPort } from './http/request-origin.ts';

/** Where the gateway is in its life: only `ready` takes messages from every channel. */
export type GatewayState = 'starting' | 'ready' | 'stopping';

/** What `/healthz` and `/readyz` report. */
export interface HealthInfo {
  state: GatewayState;
  channels: string[];
  liveSessions: number;
  /** Whether the store takes writes (`StoreHealth.summary()`); absent counts as ok. */
  store?: StoreHealthSummary;
  /** Damage the journals found and repaired (`StoreHealth.summary()`): counts and codes, no content. */
  journals?: JournalDamageSummary[];
}

/**
 * The hono app with the health checks, the adapters' routes and the gateway's own `routes` (the
 * control route). `edge` (the network edge's host, origin and login checks) runs in order before
 * every route, the health checks and 404s included.
 *
 * - `/healthz`: 200 `{ status: 'ok', channels, liveSessions, store, journals }` when the gateway is
 *   ready and the store works; 503 with `status` `starting` / `stopping` (the gateway's state) or
 *   `store-failing` (ready, but the store fails: `store.error.code` says why, `store.since` since when).
 * - `/readyz`: the same status codes; while the store works its `status` is `ready`, or `degraded`
 *   when a journal reported damage (listed in `journals`). Damage does not make it 503: the journal
 *   set the damaged part aside and works on, and another instance would not get the lost records
 *   back; it needs a person to look, which the status and the log say.
 */
export function createGatewayApp(
  adapters: Iterable<ChannelAdapter>,
  health: () => HealthInfo,
  routes: readonly ChannelRoute[] = [],
  edge: readonly MiddlewareHandler[] = [],
): Hono {
  const app = new Hono();
  for (const middleware of edge) app.use(middleware);
  app.get('/healthz', (context) => {
    const { status, info } = healthStatus(health());
    return context.json({ status: status ?? 'ok', ...info }, status === undefined ? 200 : 503);
  });
  app.get('/readyz', (context) => {
    const { status, info } = healthStatus(health());
    if (status !== undefined) return context.json({ status, ...info }, 503);
    return context.json({ status: info.journals.length > 0 ? 'degraded' : 'ready', ...info });
  });
  const all = [...[...adapters].flatMap((adapter) => adapter.routes?.() ?? []), ...routes];
  for (const route of all) app.on(route.method, route.path, (context) => route.handler(context.req.raw, routeConnection(context)));
  app.notFound((context) => context.json({ error: 'not found' }, 404));
  app.onError((_error, context) => context.json({ error: 'internal error' }, 500));
  return app;
}

/** What a route is told of the request's connection (see `RouteConnection`). */
function routeConnection(context: Context): RouteConnection {
  const port = localPort(context, 0);
  return { clientAddress: clientAddress(context), ...(port > 0 && { localPort: port }), https: isHttps(context) };
}

/** The answer's body without `state`, and the status of a 503 answer (`undefined`: ready, store ok). */
function healthStatus(health: HealthInfo): { status: string | undefined; info: Omit<HealthInfo, 'state'> & { store: StoreHealthSummary; journals: JournalDamageSummary[] } } {
  const { state, store = { state: 'ok' }, journals = [], ...rest } = health;
  const info = { ...rest, store, journals };
  if (state !== 'ready') return { status: state, info };
  return { status: store.state === 'failing' ? 'store-failing' : undefined, info };
}

/**
 * Listens on `port` (0 picks a free one) at 127.0.0.1 unless `hostname` says otherwise. Rejects
 * when it cannot (the port taken, an address this machine does not have), saying where.
 *
 * The server is Node's own; @hono/node-server, which hands each request to `app`, loads with the
 * first request. Its import makes Node load its fetch implementation (about 20 ms of a start, and
 * memory kept for good), which a gateway that polls its platforms and is asked nothing over HTTP
 * never needs. A request that arrives while it loads waits for it (its body stays buffered).
 */
export async function listen(app: Hono, port: number, hostname = '127.0.0.1'): Promise<{ server: Server; port: number; close(): Promise<void> }> {
  type Listener = (request: IncomingMessage, response: ServerResponse) => unknown;
  let handle: Listener | undefined;
  let loading: Promise<Listener> | undefined;
  const server = createServer((request, response) => {
    if (handle) return void handle(request, response);
    loading ??= import('@hono/node-server').then(({ getRequestListener }) => (handle = getRequestListener(app.fetch, { hostname })));
    loading.then(
      (listener) => listener(request, response),
      () => response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' }).end('the gateway could not load its HTTP handler\n'),
    );
  });
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => reject(new Error(`cannot listen on ${hostAndPort(hostname, port)}: ${error.code ?? error.message}`));
    server.once('error', failed);
    server.listen(port, hostname, () => {
      server.off('error', failed);
      resolve({
        server,
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.closeAllConnections();
            server.close(() => done());
          }),
      });
    });
  });
}

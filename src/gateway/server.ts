/**
 * The gateway's HTTP server (hono on @hono/node-server): `GET /healthz`, and every route the
 * adapters mount (webhooks, the web chat). The server listens before the channels start (a
 * webhook needs it), so `/healthz` answers 200 only once the gateway says it is ready, and 503
 * while it is starting or stopping.
 */
import { serve } from '@hono/node-server';
import type { ServerType } from '@hono/node-server';
import type { MiddlewareHandler } from 'hono';
// The tiny preset (PatternRouter): the routes are a handful of fixed paths, and it loads a third
// fewer modules than the default preset's RegExpRouter and TrieRouter, before the gateway is ready.
import { Hono } from 'hono/tiny';
import type { ChannelAdapter, ChannelRoute } from '../channels/types.ts';
import { hostAndPort } from './http/listen-address.ts';

/** Where the gateway is in its life: only `ready` takes messages from every channel. */
export type GatewayState = 'starting' | 'ready' | 'stopping';

/** What `/healthz` reports. */
export interface HealthInfo {
  state: GatewayState;
  channels: string[];
  liveSessions: number;
}

/**
 * The hono app with the health check, the adapters' routes and the gateway's own `routes` (the
 * control route). `/healthz` answers 200 with `{ status: 'ok', channels, liveSessions }` when
 * `health().state` is `ready`, else 503 with the state as `status`. `edge` (the network edge's
 * host, origin and login checks) runs in order before every route, `/healthz` and 404s included.
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
    const { state, ...info } = health();
    return state === 'ready' ? context.json({ status: 'ok', ...info }) : context.json({ status: state, ...info }, 503);
  });
  const all = [...[...adapters].flatMap((adapter) => adapter.routes?.() ?? []), ...routes];
  for (const route of all) app.on(route.method, route.path, (context) => route.handler(context.req.raw));
  app.notFound((context) => context.json({ error: 'not found' }, 404));
  app.onError((_error, context) => context.json({ error: 'internal error' }, 500));
  return app;
}

/**
 * Listens on `port` (0 picks a free one) at 127.0.0.1 unless `hostname` says otherwise. Rejects
 * when it cannot (the port taken, an address this machine does not have), saying where.
 */
export async function listen(app: Hono, port: number, hostname = '127.0.0.1'): Promise<{ server: ServerType; port: number; close(): Promise<void> }> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port, hostname }, (info) => {
      server.off('error', failed);
      resolve({
        server,
        port: info.port,
        close: () =>
          new Promise<void>((done) => {
            const closable = server as unknown as { closeAllConnections?: () => void; close(callback: () => void): void };
            closable.closeAllConnections?.();
            closable.close(() => done());
          }),
      });
    });
    const failed = (error: NodeJS.ErrnoException) => reject(new Error(`cannot listen on ${hostAndPort(hostname, port)}: ${error.code ?? error.message}`));
    server.once('error', failed);
  });
}

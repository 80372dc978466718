/**
 * Serves an adapter's {@link ChannelRoute}s on a local node:http server, converting to Web
 * `Request`/`Response` the way the gateway's server does, so webhook tests reach the real route
 * handlers over HTTP.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChannelRoute } from '../../src/channels/types.ts';

/** A running route server. */
export interface RouteServer {
  /** `http://127.0.0.1:<port>`. */
  origin: string;
  close(): Promise<void>;
}

/** Serves the routes `routes()` returns at request time (so they may be created after the server). */
export async function serveRoutes(routes: () => ChannelRoute[]): Promise<RouteServer> {
  const server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const route = routes().find((candidate) => candidate.method === request.method && candidate.path === url.pathname);
    if (!route) {
      response.writeHead(404).end();
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(request.headers)) if (typeof value === 'string') headers.set(name, value);
    const body = chunks.length > 0 && request.method !== 'GET' ? Buffer.concat(chunks) : undefined;
    const answer = await route.handler(new Request(url, { method: request.method, headers, ...(body ? { body } : {}) }));
    response.writeHead(answer.status, Object.fromEntries(answer.headers));
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

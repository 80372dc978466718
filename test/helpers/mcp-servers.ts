/**
 * MCP servers for the tests, built with the official SDK (`test/fixtures/mcp/test-server.mjs`):
 * the stdio one as an entry of `mcp.servers` (run by node in the sandbox, seeing only its own
 * file and the SDK), and a Streamable HTTP one served from the test's own process, each session
 * its own server, behind a bearer token when one is given.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { realpathSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { McpStdioSettings } from '../../src/tools/mcp/mcp-settings.ts';
import { makeTestServer } from '../fixtures/mcp/test-server.mjs';

const repository = fileURLToPath(new URL('../..', import.meta.url));

/** The fixture server's file. */
export const testServerScript = join(repository, 'test', 'fixtures', 'mcp', 'test-server.mjs');

/**
 * The install of the Node running the tests, when the sandbox's system view (`/usr`) does not show
 * it: `<prefix>` of `<prefix>/bin/node` (CI's second run uses a Node from `.ci/node24`). An entry
 * whose command is a Node elsewhere names its install in `readOnly`, as docs/tools.md asks.
 */
const nodeInstall = (() => {
  const real = realpathSync(process.execPath);
  if (real.startsWith('/usr/')) return [];
  const bin = dirname(real);
  return [basename(bin) === 'bin' ? dirname(bin) : bin];
})();

/** An entry of `mcp.servers` that runs the fixture server over stdio, with `overrides`. */
export function stdioTestServer(overrides: Partial<McpStdioSettings> = {}): McpStdioSettings {
  // Its own folder and the SDK (with zod) it imports: nothing else of the checkout.
  const readOnly = [dirname(testServerScript), join(repository, 'node_modules'), ...nodeInstall];
  return {
    command: process.execPath,
    args: [testServerScript],
    env: {},
    network: false,
    readOnly,
    readWrite: [],
    approval: 'never',
    timeoutSeconds: 30,
    ...overrides,
    ...(overrides.readOnly && { readOnly: [...readOnly, ...overrides.readOnly] }),
  };
}

/** A Streamable HTTP MCP server in this process. */
export interface HttpTestServer {
  /** Its endpoint, `http://127.0.0.1:PORT/mcp`. */
  url: string;
  /** The `Authorization` headers of the requests it had. */
  authorizations: string[];
  /** Ends every session and the server. */
  close(): Promise<void>;
}

/** Starts one; with `token`, a request without `Authorization: Bearer <token>` gets 401. */
export async function startHttpTestServer(options: { token?: string; name?: string } = {}): Promise<HttpTestServer> {
  const sessions = new Map<string, StreamableHTTPServerTransport>();
  const authorizations: string[] = [];
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    authorizations.push(request.headers.authorization ?? '');
    if (options.token !== undefined && request.headers.authorization !== `Bearer ${options.token}`) {
      response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'unauthorized' }));
      return;
    }
    const id = request.headers['mcp-session-id'];
    let transport = typeof id === 'string' ? sessions.get(id) : undefined;
    if (!transport) {
      if (typeof id === 'string') {
        response.writeHead(404).end();
        return;
      }
      const made = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), onsessioninitialized: (sessionId) => void sessions.set(sessionId, made) });
      made.onclose = () => {
        if (made.sessionId) sessions.delete(made.sessionId);
      };
      await makeTestServer(options.name ?? 'http-server', { crash: false }).connect(made);
      transport = made;
    }
    await transport.handleRequest(request, response);
  };
  const server: Server = createServer((request, response) => void handle(request, response).catch(() => response.writeHead(500).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    authorizations,
    async close() {
      await Promise.all([...sessions.values()].map((transport) => transport.close().catch(() => undefined)));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

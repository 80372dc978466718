/**
 * What @hono/node-server tells of a request's connection: the client's address, the local port,
 * and whether the browser used https. In `app.request()` (tests) there is no connection; the
 * answers then fall back to what the URL says.
 */
import type { Context } from 'hono';
import { isIPv4, isIPv6 } from 'node:net';
import { canonicalHost, isLoopbackHost } from './host-name.ts';

interface NodeBindings {
  incoming?: { socket?: { remoteAddress?: string; localPort?: number } };
}

function socketOf(context: Context): { remoteAddress?: string; localPort?: number } | undefined {
  return (context.env as NodeBindings | undefined)?.incoming?.socket;
}

/**
 * The client's address. From the loopback interface with `X-Forwarded-For` (a reverse proxy or
 * tunnel on this machine), the address the proxy added last, so every visitor of a tunnel is not
 * one client; `unknown` without a connection.
 */
export function clientAddress(context: Context): string {
  const peer = plainAddress(socketOf(context)?.remoteAddress ?? '');
  if (peer === undefined) return 'unknown';
  const forwarded = context.req.header('x-forwarded-for');
  if (forwarded === undefined || !isLoopbackHost(peer)) return peer;
  return plainAddress(forwarded.split(',').at(-1)?.trim() ?? '') ?? peer;
}

/**
 * The key a client's attempts are counted under: its IPv4 address, or its IPv6 /64 (one
 * subscriber commonly holds a whole /64).
 */
export function clientKey(address: string): string {
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  const tailGroups = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...headGroups, ...Array<string>(Math.max(0, 8 - headGroups.length - tailGroups.length)).fill('0'), ...tailGroups];
  return `${groups.slice(0, 4).join(':')}::/64`;
}

/** The port the request came in on, or `fallback` without a connection. */
export function localPort(context: Context, fallback: number): number {
  return socketOf(context)?.localPort ?? fallback;
}

/** Whether the browser speaks https to us: the URL's scheme, or `X-Forwarded-Proto: https` from a proxy. */
export function isHttps(context: Context): boolean {
  if (new URL(context.req.url).protocol === 'https:') return true;
  return context.req.header('x-forwarded-proto')?.split(',')[0]?.trim().toLowerCase() === 'https';
}

/**
 * What the web login reads of a request's connection. On Node it is @hono/node-server's socket
 * ({@link nodeConnection}); a runtime without one (Workers) gives its own reading.
 */
export interface RequestConnection {
  /** The client's address, the key its failed logins are counted under (`unknown` when not known). */
  clientAddress(context: Context): string;
  /** The port the request came in on (it names the session cookie), or `fallback`. */
  localPort(context: Context, fallback: number): number;
}

/** The connection as @hono/node-server tells it (see {@link clientAddress}, {@link localPort}). */
export const nodeConnection: RequestConnection = { clientAddress, localPort };

/** A canonical IP address (an IPv4-mapped IPv6 one as IPv4), or undefined for anything else. */
function plainAddress(text: string): string | undefined {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(text);
  if (mapped && isIPv4(mapped[1]!)) return mapped[1];
  if (!isIPv4(text) && !isIPv6(text)) return undefined;
  return canonicalHost(text);
}

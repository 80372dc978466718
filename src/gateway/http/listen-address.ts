/**
 * The listening address in words and URLs: where the banner says the gateway listens, the web
 * chat's address, and the address the command line reaches the gateway at.
 */
import { canonicalHost, isLoopbackHost, isWildcardAddress } from './host-name.ts';

/** How far a listening address reaches. */
export type ListenScope = 'this machine only' | 'every interface' | 'one address';

/** The scope of a listening address (`config.host`). */
export function listenScope(host: string): ListenScope {
  const canonical = canonicalHost(host) ?? host;
  if (isWildcardAddress(canonical)) return 'every interface';
  return isLoopbackHost(canonical) ? 'this machine only' : 'one address';
}

/**
 * `host:port`, an IPv6 address in brackets. An IPv6 literal is the only host with a colon; the
 * test is that, not `net.isIPv6`, whose first call compiles a regular expression for about 9 ms of
 * every start.
 */
export function hostAndPort(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * The web chat's URL: `http://localhost:<port>/` when the gateway listens on 127.0.0.1, ::1,
 * localhost or every interface, else at the address it listens on.
 */
export function webChatUrl(host: string, port: number): string {
  const canonical = canonicalHost(host) ?? host;
  const local = isWildcardAddress(canonical) || canonical === 'localhost' || canonical === '127.0.0.1' || canonical === '::1';
  return `http://${local ? `localhost:${port}` : hostAndPort(host, port)}/`;
}

/** The URL this machine reaches the gateway at (for `gateway.json`): a loopback address when it listens on every interface. */
export function localGatewayUrl(host: string, port: number): string {
  const canonical = canonicalHost(host) ?? host;
  if (canonical === '0.0.0.0') return `http://127.0.0.1:${port}`;
  if (canonical === '::') return `http://[::1]:${port}`;
  return `http://${hostAndPort(host, port)}`;
}

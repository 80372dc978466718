/**
 * Host names as the network edge compares them: the name of a `Host` header or of a URL, in one
 * canonical form (lower case; IP addresses as the WHATWG URL parser writes them, so `127.1`,
 * `0x7f000001` and `127.0.0.1` are one address; IPv6 without brackets).
 */
import { BlockList, isIP } from 'node:net';

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** `name`, `name:port`, `[v6]` or `[v6]:port`; nothing that could smuggle a userinfo or path. */
const hostHeaderPattern = /^(?:\[([0-9A-Fa-f:.]+)\]|([A-Za-z0-9._-]+))(?::(\d{1,5}))?$/;

/**
 * The canonical host name of a `Host` header value (port dropped), or undefined when it is not a
 * well-formed host.
 *
 * @example
 * hostNameOf('LOCALHOST:8787'); // 'localhost'
 * hostNameOf('[::1]:8787');     // '::1'
 * hostNameOf('evil@localhost'); // undefined
 */
export function hostNameOf(header: string): string | undefined {
  const match = hostHeaderPattern.exec(header.trim());
  if (!match) return undefined;
  return canonicalHost(match[1] ?? match[2] ?? '');
}

/**
 * The canonical form of a bare host name or address (`Bot.Example.com`, `[::1]`, `::1`,
 * `127.1`), or undefined when it is none.
 */
export function canonicalHost(name: string): string | undefined {
  const bare = name.startsWith('[') && name.endsWith(']') ? name.slice(1, -1) : name;
  if (bare === '' || /[^A-Za-z0-9._:-]/.test(bare)) return undefined;
  try {
    const hostname = new URL(`http://${isIP(bare) === 6 ? `[${bare}]` : bare}/`).hostname;
    return hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  } catch {
    return undefined;
  }
}

/** Whether a canonical host is `localhost` or a loopback address (127.0.0.0/8, ::1, and IPv4-mapped ones). */
export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  const family = isIP(host);
  return family !== 0 && loopback.check(host, family === 4 ? 'ipv4' : 'ipv6');
}

/** Whether a canonical host is the wildcard address of IPv4 or IPv6 (`0.0.0.0`, `::`): every interface. */
export function isWildcardAddress(host: string): boolean {
  return host === '0.0.0.0' || host === '::';
}

/** Whether a canonical host is an IP address rather than a name. */
export function isIpAddress(host: string): boolean {
  return isIP(host) !== 0;
}

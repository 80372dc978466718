/**
 * Which web addresses the agent's tools may reach (the browser now, `web_fetch` later). Only
 * http and https; never this machine, its private networks or link-local addresses (cloud
 * metadata services live there) unless `allowPrivateNetwork` says so; `blockUrls` always refused;
 * when `allowUrls` is set, nothing else allowed.
 *
 * A pattern is a host (`example.com`: that host alone), a host under a domain (`*.example.com`:
 * any host below it, not the domain itself), or an address prefix with its scheme
 * (`https://example.com/docs/`).
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/** What the policy is made of (operator.json `allowPrivateNetwork`, `browser.allowUrls` / `blockUrls`). */
export interface UrlPolicy {
  allowPrivateNetwork: boolean;
  allowUrls: readonly string[];
  blockUrls: readonly string[];
}

/** Resolves a host name to its addresses (injectable for tests). */
export type HostLookup = (host: string) => Promise<string[]>;

const defaultLookup: HostLookup = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((entry) => entry.address);

/** Addresses that are this machine, a private network, link-local, or otherwise not the public internet. */
const privateRanges = (() => {
  const list = new BlockList();
  const v4: [string, number][] = [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ];
  for (const [address, prefix] of v4) list.addSubnet(address, prefix, 'ipv4');
  const v6: [string, number][] = [
    ['::', 128],
    ['::1', 128],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
    ['64:ff9b::', 96],
  ];
  for (const [address, prefix] of v6) list.addSubnet(address, prefix, 'ipv6');
  return list;
})();

/** Whether `address` (an IP literal) is private, loopback, link-local or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 0) return false;
  if (family === 6) {
    // An IPv4 address written as IPv6 (::ffff:127.0.0.1) is that IPv4 address.
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(bare);
    if (mapped) return privateRanges.check(mapped[1]!, 'ipv4');
    return privateRanges.check(bare, 'ipv6');
  }
  return privateRanges.check(bare, 'ipv4');
}

/** Whether `url` matches `pattern` (see the file comment). */
export function matchesUrlPattern(url: URL, pattern: string): boolean {
  const trimmed = pattern.trim().toLowerCase();
  if (trimmed.includes('://')) return url.href.toLowerCase().startsWith(trimmed);
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (trimmed.startsWith('*.')) return host.endsWith(trimmed.slice(1));
  return host === trimmed.replace(/^\[|\]$/g, '');
}

/**
 * Checks one address against the policy: resolves to undefined when it may be reached, else to
 * the reason it may not (said to the model as is). Host names are resolved, and refused if any
 * of their addresses is private.
 */
export async function checkUrl(address: string, policy: UrlPolicy, lookup: HostLookup = defaultLookup): Promise<string | undefined> {
  let url: URL;
  try {
    url = new URL(address);
  } catch {
    return `"${address.slice(0, 200)}" is not a web address (it needs http:// or https://)`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `only http and https addresses may be opened, not ${url.protocol.replace(/:$/, '')}:`;
  if (policy.blockUrls.some((pattern) => matchesUrlPattern(url, pattern))) return `${url.host} is blocked by this gateway's settings (blockUrls)`;
  if (policy.allowUrls.length > 0 && !policy.allowUrls.some((pattern) => matchesUrlPattern(url, pattern))) {
    return `${url.host} is not among the sites this gateway allows (allowUrls)`;
  }
  if (policy.allowPrivateNetwork) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return privateRefusal(url.host);
  if (isIP(host) !== 0) return isPrivateAddress(host) ? privateRefusal(url.host) : undefined;
  let addresses: string[];
  try {
    addresses = await lookup(host);
  } catch {
    return `${url.host} could not be found (no such host)`;
  }
  return addresses.some(isPrivateAddress) ? privateRefusal(url.host) : undefined;
}

function privateRefusal(host: string): string {
  return `${host} is on this machine or a private network, which the agent may not reach (allowPrivateNetwork is off)`;
}

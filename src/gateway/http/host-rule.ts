/**
 * Which host names this gateway answers to. A web page on another site can make a browser send
 * requests to the gateway by pointing a DNS name of its own at 127.0.0.1 (DNS rebinding); such a
 * request still names the attacker's host, so refusing every name the owner did not give defeats
 * it. An IP address cannot be rebound: naming one of this machine's addresses is allowed.
 */
import { networkInterfaces } from 'node:os';
import { canonicalHost, isIpAddress, isLoopbackHost, isWildcardAddress } from './host-name.ts';

/** Whether a canonical host name (see `canonicalHost`) is one the gateway serves. */
export type HostRule = (host: string) => boolean;

/** What {@link createHostRule} allows besides localhost and loopback addresses. */
export interface HostRuleOptions {
  /** The listening address (`config.host`). */
  listenHost: string;
  /** `config.publicHosts`: names a reverse proxy or tunnel brings requests in with. */
  publicHosts: readonly string[];
  /** `config.telegram.webhookUrl`, whose host Telegram's requests name. */
  webhookUrl?: string;
  /** This machine's interface addresses (default: `os.networkInterfaces()`, read when needed). */
  interfaceAddresses?: () => Iterable<string>;
}

/**
 * The host rule: `localhost`, loopback addresses, the listening address when it is a specific
 * one, this machine's interface addresses when it listens on every interface, the public hosts,
 * and the webhook URL's host.
 *
 * @example
 * const allows = createHostRule({ listenHost: '127.0.0.1', publicHosts: ['bot.example.com'] });
 * allows('bot.example.com'); // true
 * allows('rebound.attacker.example'); // false
 */
export function createHostRule(options: HostRuleOptions): HostRule {
  const listening = canonicalHost(options.listenHost);
  const wildcard = listening !== undefined && isWildcardAddress(listening);
  const named = new Set<string>();
  if (listening !== undefined && !wildcard) named.add(listening);
  for (const host of options.publicHosts) {
    const canonical = canonicalHost(host);
    if (canonical !== undefined) named.add(canonical);
  }
  const webhookHost = options.webhookUrl ? webhookHostOf(options.webhookUrl) : undefined;
  if (webhookHost !== undefined) named.add(webhookHost);
  const interfaces = options.interfaceAddresses ?? machineAddresses;
  return (host) => {
    if (isLoopbackHost(host) || named.has(host)) return true;
    if (!wildcard || !isIpAddress(host)) return false;
    for (const address of interfaces()) if (canonicalHost(address) === host) return true;
    return false;
  };
}

function webhookHostOf(url: string): string | undefined {
  try {
    return canonicalHost(new URL(url).hostname);
  } catch {
    return undefined;
  }
}

function* machineAddresses(): Iterable<string> {
  for (const addresses of Object.values(networkInterfaces())) for (const entry of addresses ?? []) yield entry.address;
}

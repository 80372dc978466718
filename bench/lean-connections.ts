/**
 * The connections a bot keeps alive to its fake Telegram server, and waiting for the idle ones to
 * be gone before a measurement sends on them.
 *
 * Why: the fake is a Node HTTP server, which closes a connection left idle for 5 s. grammY's
 * client (node-fetch over an `http.Agent` with keep-alive) takes a pooled connection without
 * knowing that; one taken as the server closes it fails with "socket hang up", and grammY does
 * not retry a sendMessage, so that chat never gets its reply and the run stops on a timeout. In
 * the lean benchmark a bot waits while the other bots take their turns, its pool of up to 1,000
 * connections from its last burst idle for about that long: measured here, bursts 5 s apart lost
 * 93 replies of 1,000. It is the fake's keep-alive race, not a bot's cost, so a measurement starts
 * only once the server has closed every idle connection of the bot (at most about 5 s of waiting,
 * outside what is measured). The held long poll stays.
 */
import { readFileSync } from 'node:fs';

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

/** Open (ESTABLISHED) TCP connections from this machine to 127.0.0.1:`port`, the client's side of each, from /proc/net/tcp. */
export function connectionsTo(port: number): number {
  // Columns: sl, local address, remote address (hex IP:port), state (01 = ESTABLISHED), ...
  const remote = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  let count = 0;
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n')) {
    const columns = line.trim().split(/\s+/);
    if (columns[2] === remote && columns[3] === '01') count++;
  }
  return count;
}

/**
 * Resolves once at most one connection to the server at `apiRoot` is open (the long poll), with
 * the time waited in ms; after `timeoutMs` it resolves anyway (a bot may hold more for reasons
 * of its own, which the measurement then shows).
 */
export async function idleConnectionsClosed(apiRoot: string, timeoutMs = 8_000): Promise<number> {
  const port = Number(new URL(apiRoot).port);
  const start = Date.now();
  while (connectionsTo(port) > 1 && Date.now() - start < timeoutMs) await sleep(50);
  return Date.now() - start;
}

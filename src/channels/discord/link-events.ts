/**
 * The discord.js events that tell the state of the adapter's link to Discord. The gateway
 * websocket is the link: discord.js reconnects it on its own (`shardReconnecting` when a socket
 * closed and it tries again, `shardDisconnect` when Discord closed it for good: a refused token,
 * disallowed intents), and it works again when the session is resumed (RESUMED) or a new one is
 * ready (READY, read raw, as soon as it arrives: discord.js's own `shardReady` waits for the
 * guilds). Each drop and each return is reported once (see `../link-status.ts`).
 *
 * Rate limits: the adapter's own REST client rejects every 429 Discord answers to
 * `call-discord.ts`, which reports it; the client's REST (login, a thread looked up by
 * `channel-kinds.ts`) waits them out inside discord.js, so its answers are watched here. The two
 * clients never share a request, so no 429 is counted twice.
 */
import { Events, GatewayDispatchEvents, RESTEvents, type Client } from 'discord.js';
import type { LinkStatus } from '../link-status.ts';

/** `Retry-After` (seconds) as ms; 0 when Discord sent none (a 429 from its edge, say). */
function retryAfterMs(header: string | null): number {
  const seconds = header === null ? Number.NaN : Number(header);
  return Number.isFinite(seconds) ? Math.ceil(seconds * 1000) : 0;
}

/**
 * Reports `client`'s link to `link` while `isCurrent()` (the adapter's running client: a stopped
 * one closing its socket is not a lost link).
 *
 * @example
 * watchLink(client, link, () => client === current);
 */
export function watchLink(client: Client, link: LinkStatus, isCurrent: () => boolean): void {
  client.on(Events.ShardReconnecting, () => {
    if (isCurrent()) link.lost('gateway connection closed; reconnecting');
  });
  client.on(Events.ShardDisconnect, (event) => {
    if (isCurrent()) link.lost(`gateway closed for good (code ${event.code})`);
  });
  client.ws.on(GatewayDispatchEvents.Resumed, () => link.restored());
  client.ws.on(GatewayDispatchEvents.Ready, () => link.restored());
  // The answer handed to listeners shares its body with discord.js's own (undici's request
  // strategy copies only the object): only the status and headers are read.
  client.rest.on(RESTEvents.Response, (_request, response) => {
    if (response.status === 429) link.rateLimited(retryAfterMs(response.headers.get('retry-after')));
  });
}

/**
 * What the web login reads of a request's connection, on Workers: there is no socket, so the
 * client's address is the one Cloudflare's edge puts in `CF-Connecting-IP` (it sets the header
 * itself, a client cannot choose it there), and the port is the one in the request's URL.
 */
import type { Context } from 'hono';
import { isIP } from 'node:net';
import type { RequestConnection } from '../gateway/http/request-origin.ts';

/** The connection of a request to the Worker. */
export const workerConnection: RequestConnection = {
  clientAddress(context: Context): string {
    const address = context.req.header('cf-connecting-ip')?.trim() ?? '';
    // Anything but an address (a local `wrangler dev` sends none) counts as one unknown client.
    return isIP(address) === 0 ? 'unknown' : address.toLowerCase();
  },
  localPort(context: Context): number {
    // The port the browser sees: cookies are shared by a host's ports, so it names this Worker's.
    const url = new URL(context.req.url);
    if (url.port !== '') return Number(url.port);
    return url.protocol === 'https:' ? 443 : 80;
  },
};


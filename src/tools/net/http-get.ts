/**
 * A guarded HTTP GET for the agent's `web_fetch`: the address actually connected to is checked,
 * not only a DNS answer taken beforehand. Host names are resolved by our own `lookup` when the
 * socket connects, so a name server that answers a check with a public address and the
 * connection a moment later with a private one (DNS rebinding) is caught; an address written in
 * the URL is checked before connecting, and the socket's peer once more after.
 *
 * Redirects are followed here, each hop checked again (scheme, the gateway's allow and block
 * lists, the address). Nothing identifying is ever sent: no cookies, no Authorization (even
 * `user:pass@` in the address is dropped), no proxy settings from the environment: only the
 * headers the caller gives.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { FetchError, PrivateAddressError, classifyNetworkError, privateAddressMessage } from './fetch-error.ts';
import { isPrivateAddress, type HostLookup } from './url-policy.ts';

/** The status line and headers of an answer, before its body is read. */
export interface ResponseHead {
  url: URL;
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
}

/** An answer with (up to the limit of) its body, decoded from gzip, deflate or brotli. */
export interface HttpResponse extends ResponseHead {
  body: Buffer;
  /** The body was longer than the limit the caller set: reading stopped there. */
  truncated: boolean;
  /** The addresses redirected through before this one, in order. */
  redirects: URL[];
}

/** What {@link httpGet} needs. */
export interface HttpGetOptions {
  /** Whether private, loopback and link-local addresses may be reached. */
  allowPrivateNetwork: boolean;
  /** Checks an address before it is requested (scheme, allow and block lists): undefined, or why not. */
  checkUrl(url: string): Promise<string | undefined>;
  /** How many body bytes to read for this answer (0: none, the connection is closed at once). */
  bodyLimit(head: ResponseHead): number;
  /** The request headers, exactly. */
  headers: Readonly<Record<string, string>>;
  /** Most redirects followed. */
  maxRedirects: number;
  /** The whole fetch, redirects and body included, must finish within this. */
  timeoutMs: number;
  /** The turn's signal: when it aborts, its reason is thrown. */
  signal: AbortSignal;
  /** Resolves host names (tests); default the system resolver. */
  lookup?: HostLookup;
}

const redirectStatuses = new Set([301, 302, 303, 307, 308]);

/**
 * GETs `address`, following redirects. Rejects with a {@link FetchError} for every failure the
 * model should hear about, or with `signal.reason` when the turn is aborted.
 */
export async function httpGet(address: URL, options: HttpGetOptions): Promise<HttpResponse> {
  options.signal.throwIfAborted();
  // One signal for the request: aborted by the turn or by the time limit, whichever comes first
  // (by hand rather than AbortSignal.any, whose listeners on the turn's signal outlive the fetch).
  const combined = new AbortController();
  let phase = 'waiting for an answer';
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    combined.abort(new FetchError('timeout', `${address.href} took longer than ${seconds(options.timeoutMs)} (the time limit) while ${phase}`));
  }, options.timeoutMs);
  const onAbort = () => combined.abort(options.signal.reason);
  options.signal.addEventListener('abort', onAbort, { once: true });
  try {
    return await follow(address, { ...options, signal: combined.signal }, (now) => (phase = now));
  } catch (error) {
    options.signal.throwIfAborted();
    if (timedOut) throw combined.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener('abort', onAbort);
  }
}

async function follow(start: URL, options: HttpGetOptions, setPhase: (phase: string) => void): Promise<HttpResponse> {
  const seen = new Set<string>();
  const redirects: URL[] = [];
  let url = start;
  for (;;) {
    await checkHop(url, options, redirects.length > 0);
    seen.add(url.href);
    setPhase(`waiting for ${url.host} to answer`);
    const response = await requestOnce(url, options, setPhase);
    const location = redirectStatuses.has(response.status) ? response.headers.location : undefined;
    if (location === undefined) return { ...response, redirects };
    let next: URL;
    try {
      next = withoutSecrets(new URL(location, url));
    } catch {
      throw new FetchError('bad-redirect', `${url.href} redirected to "${location.slice(0, 200)}", which is not a web address`);
    }
    if (seen.has(next.href)) throw new FetchError('redirect-loop', `redirect loop: ${url.href} redirected back to ${next.href}, already visited`);
    if (redirects.length >= options.maxRedirects) {
      throw new FetchError('too-many-redirects', `too many redirects: more than ${options.maxRedirects}, starting at ${start.href} (the last went to ${next.href})`);
    }
    redirects.push(url);
    url = next;
  }
}

/** The address without `user:pass@` (never sent) and without its #fragment (never sent either). */
export function withoutSecrets(url: URL): URL {
  const copy = new URL(url.href);
  copy.username = '';
  copy.password = '';
  copy.hash = '';
  return copy;
}

async function checkHop(url: URL, options: HttpGetOptions, redirected: boolean): Promise<void> {
  const prefix = redirected ? `redirected to ${url.href.slice(0, 300)}, but ` : '';
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchError(redirected ? 'bad-redirect' : 'bad-url', `${prefix}only http and https addresses can be fetched, not ${url.protocol}`);
  }
  const reason = await options.checkUrl(url.href);
  if (reason !== undefined) throw new FetchError('refused-url', prefix + reason);
  const host = bareHost(url);
  if (!options.allowPrivateNetwork && isIP(host) !== 0 && isPrivateAddress(host)) {
    throw new FetchError('private-address', prefix + privateAddressMessage(url.host));
  }
}

function requestOnce(url: URL, options: HttpGetOptions, setPhase: (phase: string) => void): Promise<Omit<HttpResponse, 'redirects'>> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(
      {
        protocol: url.protocol,
        hostname: bareHost(url),
        port: url.port || undefined,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        headers: { ...options.headers },
        // A fresh connection each time: a pooled socket would skip the connect-time check.
        agent: false,
        lookup: guardedLookup(options.allowPrivateNetwork, options.lookup),
        signal: options.signal,
      },
      (response) => {
        const peer = response.socket.remoteAddress;
        if (!options.allowPrivateNetwork && peer !== undefined && isPrivateAddress(peer)) {
          response.destroy();
          reject(new FetchError('private-address', privateAddressMessage(url.host, peer)));
          return;
        }
        const head: ResponseHead = { url, status: response.statusCode ?? 0, statusText: response.statusMessage ?? '', headers: response.headers };
        const limit = redirectStatuses.has(head.status) && head.headers.location !== undefined ? 0 : options.bodyLimit(head);
        setPhase(`reading the answer of ${url.host}`);
        readBody(response, limit, options.signal).then(
          ({ body, truncated }) => resolve({ ...head, body, truncated }),
          (error: unknown) => reject(options.signal.aborted ? options.signal.reason : classifyNetworkError(error, url)),
        );
      },
    );
    request.on('error', (error) => reject(options.signal.aborted ? options.signal.reason : classifyNetworkError(error, url)));
    request.end();
  });
}

/**
 * Reads up to `limit` decoded bytes of `response`, then closes it: the rest is never downloaded
 * (and a small gzip that inflates to gigabytes stops at the limit too).
 */
function readBody(response: IncomingMessage, limit: number, signal: AbortSignal): Promise<{ body: Buffer; truncated: boolean }> {
  if (limit <= 0) {
    response.destroy();
    return Promise.resolve({ body: Buffer.alloc(0), truncated: false });
  }
  const decoded = decoder(response);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (error: unknown, truncated = false) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (truncated || error !== undefined) {
        response.destroy();
        if (decoded !== response) decoded.destroy();
      }
      if (error !== undefined) reject(error);
      else resolve({ body: Buffer.concat(chunks, Math.min(size, limit)), truncated });
    };
    const onAbort = () => finish(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    decoded.on('data', (chunk: Buffer) => {
      if (settled) return;
      chunks.push(chunk);
      size += chunk.length;
      if (size > limit) finish(undefined, true);
    });
    decoded.on('end', () => finish(undefined));
    decoded.on('error', (error) => finish(error));
    // The connection closing before the body ends (the server went away).
    response.on('error', (error) => finish(error));
    response.on('close', () => {
      if (!response.complete) finish(Object.assign(new Error('the connection closed before the body was complete'), { code: 'ECONNRESET' }));
    });
  });
}

function decoder(response: IncomingMessage): Readable {
  const encoding = String(response.headers['content-encoding'] ?? '').trim().toLowerCase();
  // Servers that find the stream already ended before the decoder does still produce data.
  const options = { finishFlush: zlib.constants.Z_SYNC_FLUSH };
  if (encoding === 'gzip' || encoding === 'x-gzip') return response.pipe(zlib.createGunzip(options));
  if (encoding === 'deflate') return response.pipe(zlib.createInflate(options));
  if (encoding === 'br') return response.pipe(zlib.createBrotliDecompress({ finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH }));
  return response;
}

/**
 * Resolves a host name for the socket and refuses it when any of its addresses is private and
 * `allowPrivateNetwork` is off: this runs when the connection is made, so what is checked is
 * what is connected to.
 */
function guardedLookup(allowPrivateNetwork: boolean, resolve: HostLookup | undefined): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    const done = (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = allowPrivateNetwork ? undefined : addresses.find((entry) => isPrivateAddress(entry.address));
      if (refused) return callback(new PrivateAddressError(hostname, refused.address), '', 0);
      if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }), '', 0);
      if (lookupOptions.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    };
    if (resolve) {
      resolve(hostname).then(
        (found) => done(null, found.map((address) => ({ address, family: isIP(address) }))),
        (error: unknown) => done(Object.assign(error instanceof Error ? error : new Error(String(error)), { code: 'ENOTFOUND' }), []),
      );
      return;
    }
    dnsLookup(hostname, { family: lookupOptions.family, hints: lookupOptions.hints, all: true }, (error, addresses) => done(error, addresses ?? []));
  };
}

function bareHost(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}

function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${(ms / 1000).toFixed(1)} s`;
}

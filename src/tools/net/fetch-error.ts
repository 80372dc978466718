/**
 * Why a web fetch failed, as a kind the tool can tell apart and a sentence the model reads as is.
 * Node's own errors (ENOTFOUND, ECONNREFUSED, certificate codes) are turned into these once, at
 * the request, so the tool never parses error text.
 */
import { errorCode } from '../builtin/results.ts';

/** What went wrong, one kind per way a fetch fails. */
export type FetchFailure =
  | 'bad-url'
  | 'refused-url'
  | 'private-address'
  | 'dns'
  | 'connection-refused'
  | 'connection-reset'
  | 'timeout'
  | 'tls'
  | 'redirect-loop'
  | 'too-many-redirects'
  | 'bad-redirect'
  | 'network';

/** A failed fetch: `message` is said to the model as is. */
export class FetchError extends Error {
  constructor(
    readonly kind: FetchFailure,
    message: string,
  ) {
    super(message);
    this.name = 'FetchError';
  }
}

/** Thrown by the connect-time lookup when a host name resolves to an address that may not be reached. */
export class PrivateAddressError extends Error {
  readonly code = 'EPRIVATEADDRESS';
  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super(`${host} resolves to ${address}, on this machine or a private network`);
    this.name = 'PrivateAddressError';
  }
}

/** The sentence for a refused private address (the same words as the browser's policy). */
export function privateAddressMessage(host: string, address?: string): string {
  const where = address && address !== host ? `${host} (${address})` : host;
  return `${where} is on this machine or a private network, which the agent may not reach (allowPrivateNetwork is off)`;
}

const tlsCodes = /^(CERT_|ERR_TLS_|ERR_SSL_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$)/;

/** Turns a Node error from connecting to `url` (or reading its answer) into a {@link FetchError}. */
export function classifyNetworkError(error: unknown, url: URL): FetchError {
  if (error instanceof FetchError) return error;
  if (error instanceof PrivateAddressError) return new FetchError('private-address', privateAddressMessage(error.host, error.address));
  // With happy eyeballs (autoSelectFamily) a failure to reach every address comes as an AggregateError.
  const inner = error instanceof AggregateError && error.errors.length > 0 ? error.errors[0] : error;
  const code = errorCode(inner) ?? errorCode(error) ?? '';
  const detail = inner instanceof Error ? inner.message : String(inner);
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
      return new FetchError('dns', `${url.hostname} could not be found (DNS: ${code === 'EAI_AGAIN' ? 'no answer from the name server' : 'no such host'})`);
    case 'ECONNREFUSED':
      return new FetchError('connection-refused', `${url.host} refused the connection (nothing listens on port ${portOf(url)})`);
    case 'ECONNRESET':
    case 'EPIPE':
      return new FetchError('connection-reset', `the connection to ${url.host} was closed before the answer was complete`);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return new FetchError('network', `${url.host} cannot be reached from here (${code})`);
    case 'ETIMEDOUT':
      return new FetchError('timeout', `connecting to ${url.host} timed out`);
  }
  if (tlsCodes.test(code)) return new FetchError('tls', `TLS error with ${url.host}: ${tlsReason(detail)} (${code})`);
  return new FetchError('network', `fetching ${url.href} failed: ${detail}${code ? ` (${code})` : ''}`);
}

/** OpenSSL's reason without its error-stack noise; a plain http server on an https address gets a hint. */
function tlsReason(message: string): string {
  const reason = /SSL routines:[^:]*:([^:]+)/.exec(message)?.[1]?.trim() ?? message.split('\n')[0]!.trim();
  return reason === 'wrong version number' ? 'the server does not speak TLS (wrong version number): is it http, not https?' : reason;
}

function portOf(url: URL): string {
  return url.port || (url.protocol === 'https:' ? '443' : '80');
}

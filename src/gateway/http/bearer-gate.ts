/**
 * A route's `Authorization: Bearer <token>` check, counted like a login: each request is decided
 * by the login limiter's one-step attempt (see `login-rate-limiter.ts`), so after 5 wrong tokens
 * from one client in 15 minutes its requests are refused until the window ends, with 429 and
 * `Retry-After`, without their tokens being compared. A request with no bearer token counts as a
 * wrong one. The client is reported once, when it reaches the limit, by
 * its address; no token is ever logged or echoed.
 */
import type { RouteConnection } from '../../channels/types.ts';
import { LoginRateLimiter } from './login-rate-limiter.ts';
import { clientKey } from './request-origin.ts';

/** Options of {@link createBearerGate}. */
export interface BearerGateOptions {
  /** What the door is, for the log: `metrics`, `control`. */
  door: string;
  /** Whether a token opens the door (compared in constant time by the caller's own check). */
  accepts(token: string): boolean;
  /** The answer to a wrong or missing token (each route keeps its own 401). */
  unauthorized(): Response;
  /**
   * The answer to a client at the limit, waiting `retryAfter` seconds (a route whose callers
   * expect their own error shape: the OpenAI-compatible API's); the gate's JSON by default. The
   * gate adds `Retry-After` itself.
   */
  refused?(retryAfter: number): Response;
  /** Counts the wrong tokens; one of its own by default. */
  limiter?: LoginRateLimiter;
  /** Where a client that reached the limit is reported. */
  log?(line: string): void;
}

/** Checks one request: undefined when its bearer token opens the door, else the answer (401 or 429). */
export type BearerGate = (request: Request, connection: RouteConnection | undefined) => Response | undefined;

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearerTokenOf(request: Request): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1];
}

/**
 * The gate of one door.
 *
 * @example
 * const gate = createBearerGate({ door: 'metrics', accepts: (token) => sameSecret(token, secret), unauthorized: () => new Response(null, { status: 401 }) });
 * const refusal = gate(request, connection);
 * if (refusal) return refusal;
 */
export function createBearerGate(options: BearerGateOptions): BearerGate {
  const limiter = options.limiter ?? new LoginRateLimiter();
  return (request, connection) => {
    const address = connection?.clientAddress ?? 'unknown';
    const given = bearerTokenOf(request);
    const result = limiter.attempt(clientKey(address), given !== undefined && options.accepts(given));
    if (result.outcome === 'ok') return undefined;
    if (result.outcome === 'wrong') return options.unauthorized();
    const minutes = Math.ceil(result.retryAfter / 60);
    if (result.reachedNow) options.log?.(`${options.door}: too many wrong tokens from ${address}; its requests are refused for ${minutes} min`);
    const own = options.refused?.(result.retryAfter);
    if (own) {
      own.headers.set('retry-after', String(result.retryAfter));
      return own;
    }
    return Response.json(
      { error: `too many wrong tokens: try again in ${minutes} min`, retryAfter: result.retryAfter },
      { status: 429, headers: { 'cache-control': 'no-store', 'retry-after': String(result.retryAfter) } },
    );
  };
}

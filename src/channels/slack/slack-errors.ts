/**
 * Slack failures as {@link DeliveryError}s, wrapped once at the adapter's edge. The Web API
 * answers HTTP 200 with `{ ok: false, error }` for most failures (final, except Slack's own
 * transient ones such as `internal_error`), HTTP 429 with `Retry-After` for rate limits, and
 * 5xx when it is down; network failures are retryable. Tokens travel in the Authorization header,
 * but an SDK error or a log line could still carry one, so every text that leaves is scrubbed.
 */
import { webApi } from '@slack/bolt';
import { DeliveryError } from '../types.ts';

/** Removes tokens and secrets from a text. */
export type Scrub = (text: string) => string;

/** Anything shaped like a Slack token: bot, user, app, configuration, refresh tokens. */
const tokenShape = /\b(xox[abeoprs]|xapp)-[A-Za-z0-9-]+/g;

/** A scrubber for the given secrets (and anything shaped like a Slack token). */
export function createScrub(secrets: readonly (string | undefined)[]): Scrub {
  const known = secrets.filter((secret): secret is string => secret !== undefined && secret.length >= 4);
  return (text) => known.reduce((result, secret) => result.split(secret).join('<secret>'), text).replace(tokenShape, '$1-<secret>');
}

/** Slack `error` codes of a call that may succeed when tried again. */
const transientErrors = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'team_added_to_org']);

/** A copy of an error with its message (and its causes') scrubbed, nothing else kept. */
export function scrubbedError(error: unknown, scrub: Scrub, depth = 0): Error {
  const source = error instanceof Error ? error : new Error(String(error));
  const copy = new Error(scrub(source.message), depth < 3 && source.cause !== undefined ? { cause: scrubbedError(source.cause, scrub, depth + 1) } : undefined);
  copy.name = source.name;
  return copy;
}

/** The Web API's `error` code of a failed call (`channel_not_found`), when Slack answered one. */
export function slackErrorCode(error: unknown): string | undefined {
  const source = error instanceof DeliveryError ? error.cause : error;
  if (typeof source !== 'object' || source === null) return undefined;
  const code = (source as { slackError?: unknown }).slackError;
  return typeof code === 'string' ? code : undefined;
}

/** The scrubbed cause kept on a {@link DeliveryError}: the original's text plus Slack's error code. */
function causeOf(error: unknown, scrub: Scrub, slackError?: string): Error {
  const cause = scrubbedError(error, scrub);
  if (slackError !== undefined) Object.assign(cause, { slackError });
  return cause;
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Wraps any failure of the Web API method `method` as a scrubbed {@link DeliveryError}. */
export function toDeliveryError(error: unknown, method: string, scrub: Scrub): DeliveryError {
  if (error instanceof DeliveryError) return error;
  const code = (error as { code?: unknown } | null)?.code;
  if (code === webApi.ErrorCode.PlatformError) {
    const slackError = String((error as webApi.WebAPIPlatformError).data.error);
    return new DeliveryError(scrub(`Slack ${method} failed: ${slackError}`), { retryable: transientErrors.has(slackError), cause: causeOf(error, scrub, slackError) });
  }
  if (code === webApi.ErrorCode.RateLimitedError) {
    const retryAfterSeconds = (error as webApi.WebAPIRateLimitedError).retryAfter;
    return new DeliveryError(`Slack ${method} failed: rate limited, retry after ${retryAfterSeconds} s`, {
      retryable: true,
      retryAfterMs: retryAfterSeconds * 1000,
      cause: causeOf(error, scrub, 'ratelimited'),
    });
  }
  if (code === webApi.ErrorCode.HTTPError) {
    const status = (error as webApi.WebAPIHTTPError).statusCode;
    return new DeliveryError(`Slack ${method} failed: HTTP ${status}`, { retryable: status === 429 || status >= 500, cause: causeOf(error, scrub) });
  }
  const inner = code === webApi.ErrorCode.RequestError ? (error as webApi.WebAPIRequestError).original : error;
  const reason = inner instanceof Error && inner.cause instanceof Error ? `${inner.message} (${inner.cause.message})` : describe(inner);
  return new DeliveryError(scrub(`Slack ${method} failed: network error: ${reason}`), { retryable: true, cause: causeOf(inner, scrub) });
}

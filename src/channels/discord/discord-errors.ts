/**
 * Discord failures as {@link DeliveryError}s, wrapped once at the adapter's edge: 429 is
 * retryable with the wait Discord asked for, and so is a rate-limit wait discord.js predicted that
 * is too long to queue; 5xx and network failures are retryable, other 4xx are not. discord.js's
 * errors carry request URLs (an interaction's or webhook's token is part of the path) and its
 * bodies, so what leaves here is a scrubbed copy: message, status and JSON code, never the bot
 * token nor a webhook token.
 */
import { DiscordAPIError, HTTPError, RateLimitError, type RateLimitData } from 'discord.js';
import { DeliveryError } from '../types.ts';

/** Removes the bot token (and interaction / webhook tokens in API paths) from a text. */
export type Scrub = (text: string) => string;

/** A scrubber for `token`. */
export function createScrub(token: string): Scrub {
  return (text) => {
    const withoutToken = token === '' ? text : text.split(token).join('<token>');
    return withoutToken.replace(/\/(interactions|webhooks)\/(\d+)\/[^/\s?]+/g, '/$1/$2/<token>').replace(/\b(Bot|Bearer)\s+[A-Za-z0-9._-]{20,}/g, '$1 <token>');
  };
}

/**
 * A rate-limit wait discord.js predicted from its own accounting that is longer than the adapter
 * queues a call for (see `call-discord.ts`): the call was not sent.
 */
export class RateLimitWaitTooLongError extends Error {
  override name = 'RateLimitWaitTooLongError';
  /** The predicted wait, in ms. */
  readonly retryAfterMs: number;
  /** Whether the bot's global limit is what is waited for (else the call's bucket). */
  readonly global: boolean;
  /** The longest wait this call would have been queued for, in ms. */
  readonly queueLimitMs: number;

  constructor(limit: Pick<RateLimitData, 'timeToReset' | 'global'>, queueLimitMs: number) {
    super(`rate limited${limit.global ? ' (global)' : ''}, discord.js would wait ${Math.ceil(limit.timeToReset)} ms (this call is queued up to ${queueLimitMs} ms)`);
    this.retryAfterMs = Math.ceil(limit.timeToReset);
    this.global = limit.global;
    this.queueLimitMs = queueLimitMs;
  }
}

/** A failed Discord call as it leaves the adapter: the scrubbed message with Discord's status and code. */
export class DiscordCallError extends Error {
  override name = 'DiscordCallError';
  /** The HTTP status (0 for a network failure; 429 also for a rate-limit wait predicted, unsent). */
  readonly status: number;
  /** Discord's JSON error code (`10008` Unknown Message, ...), when it answered one. */
  readonly code: number | undefined;

  constructor(message: string, status: number, code: number | undefined, cause?: Error) {
    super(message, cause ? { cause } : undefined);
    this.status = status;
    this.code = code;
  }
}

/** A scrubbed copy of an error chain (a few levels deep). */
function scrubbedError(error: unknown, scrub: Scrub, depth = 0): Error {
  const source = error instanceof Error ? error : new Error(String(error));
  const copy = new Error(scrub(source.message), depth < 3 && source.cause !== undefined ? { cause: scrubbedError(source.cause, scrub, depth + 1) } : undefined);
  copy.name = source.name;
  return copy;
}

/** Discord's JSON error code of a failed call, when it answered one. */
export function discordErrorCode(error: unknown): number | undefined {
  const source = error instanceof DeliveryError ? error.cause : error;
  if (source instanceof DiscordCallError) return source.code;
  return source instanceof DiscordAPIError && typeof source.code === 'number' ? source.code : undefined;
}

/** Wraps any failure of the Discord operation `operation` as a scrubbed {@link DeliveryError}. */
export function toDeliveryError(error: unknown, operation: string, scrub: Scrub): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof RateLimitWaitTooLongError) {
    const message = `Discord ${operation} not sent: ${error.message}`;
    return new DeliveryError(scrub(message), { retryable: true, retryAfterMs: error.retryAfterMs, cause: new DiscordCallError(scrub(message), 429, undefined) });
  }
  if (error instanceof RateLimitError) {
    const message = `Discord ${operation} failed: 429 rate limited${error.global ? ' (global)' : ''}, retry after ${error.retryAfter} ms`;
    return new DeliveryError(scrub(message), { retryable: true, retryAfterMs: error.retryAfter, cause: new DiscordCallError(scrub(message), 429, undefined) });
  }
  if (error instanceof DiscordAPIError) {
    const code = typeof error.code === 'number' ? error.code : undefined;
    const message = `Discord ${operation} failed: ${error.status} ${error.message}${code !== undefined ? ` (code ${code})` : ''}`;
    return new DeliveryError(scrub(message), { retryable: error.status === 429 || error.status >= 500, cause: new DiscordCallError(scrub(message), error.status, code) });
  }
  if (error instanceof HTTPError) {
    const message = `Discord ${operation} failed: ${error.status} ${error.message}`;
    return new DeliveryError(scrub(message), { retryable: true, cause: new DiscordCallError(scrub(message), error.status, undefined) });
  }
  const inner = error instanceof Error && error.cause instanceof Error ? error.cause : error;
  const reason = inner instanceof Error ? inner.message : String(inner);
  const message = `Discord ${operation} failed: network error: ${reason}`;
  return new DeliveryError(scrub(message), { retryable: true, cause: new DiscordCallError(scrub(message), 0, undefined, scrubbedError(error, scrub)) });
}

/** The message of any error, scrubbed, for a log line. */
export function describeError(error: unknown, scrub: Scrub): string {
  return scrub(error instanceof Error ? error.message : String(error));
}

/**
 * Telegram failures as {@link DeliveryError}s, wrapped once at the adapter's edge: 429 is
 * retryable with the `retry_after` Telegram asked for, 5xx and network failures are retryable,
 * other 4xx are not. grammy's network errors carry the request URL, which holds the bot token,
 * so every message and cause that leaves here is scrubbed of it.
 */
import { GrammyError, HttpError } from 'grammy/web';
import { DeliveryError } from '../types.ts';

/** Removes a bot token (and anything shaped like one in a Bot API URL) from a text. */
export type Scrub = (text: string) => string;

/** A scrubber for `token`. */
export function createScrub(token: string): Scrub {
  return (text) => {
    const withoutToken = token === '' ? text : text.split(token).join('<token>');
    return withoutToken.replace(/\/bot\d+:[A-Za-z0-9_-]+/g, '/bot<token>');
  };
}

/** A copy of an error with its message (and its causes') scrubbed. */
function scrubbedError(error: unknown, scrub: Scrub, depth = 0): Error {
  const source = error instanceof Error ? error : new Error(String(error));
  const copy = new Error(scrub(source.message), depth < 3 && source.cause !== undefined ? { cause: scrubbedError(source.cause, scrub, depth + 1) } : undefined);
  copy.name = source.name;
  return copy;
}

/** The Bot API's `description` of a failed call, when Telegram answered one. */
export function telegramDescription(error: unknown): string | undefined {
  const source = error instanceof DeliveryError ? error.cause : error;
  return source instanceof GrammyError ? source.description : undefined;
}

/** The Bot API's `error_code` of a failed call, when Telegram answered one. */
export function telegramErrorCode(error: unknown): number | undefined {
  const source = error instanceof DeliveryError ? error.cause : error;
  return source instanceof GrammyError ? source.error_code : undefined;
}

/** Wraps any failure of the Bot API method `method` as a scrubbed {@link DeliveryError}. */
export function toDeliveryError(error: unknown, method: string, scrub: Scrub): DeliveryError {
  if (error instanceof DeliveryError) return error;
  if (error instanceof GrammyError) {
    const code = error.error_code;
    const retryAfter = error.parameters.retry_after;
    return new DeliveryError(scrub(`Telegram ${method} failed: ${code} ${error.description}`), {
      retryable: code === 429 || code >= 500,
      ...(code === 429 ? { retryAfterMs: (retryAfter ?? 1) * 1000 } : {}),
      cause: error,
    });
  }
  const inner = error instanceof HttpError ? error.error : error;
  const reason = inner instanceof Error ? inner.message : String(inner);
  return new DeliveryError(scrub(`Telegram ${method} failed: network error: ${reason}`), { retryable: true, cause: scrubbedError(inner, scrub) });
}

/**
 * Discord's REST answers as the real API writes them: JSON errors `{ message, code }` (with
 * `errors` for a form that does not validate) and the HTTP status, 429s with `retry_after` in the
 * body and `Retry-After` / `X-RateLimit-*` headers, and the rate-limit headers every answer has.
 * The fake reports buckets but does not enforce them (a real bucket of 5 messages per 5 s would
 * slow the tests down) unless a test limits a route (`fake-discord-buckets.ts`).
 */
import { createHash } from 'node:crypto';

/** An answer to one REST call. */
export interface RestAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A Discord API error, thrown by a route and answered as JSON. */
export class DiscordApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly errors?: unknown,
  ) {
    super(message);
  }

  answer(): RestAnswer {
    return { status: this.status, body: { message: this.message, code: this.code, ...(this.errors ? { errors: this.errors } : {}) } };
  }
}

/** The JSON error codes the fake answers with, by their names in Discord's documentation. */
export const discordErrors = {
  unauthorized: () => new DiscordApiFailure(401, 0, '401: Unauthorized'),
  notFound: () => new DiscordApiFailure(404, 0, '404: Not Found'),
  unknownChannel: () => new DiscordApiFailure(404, 10003, 'Unknown Channel'),
  unknownMessage: () => new DiscordApiFailure(404, 10008, 'Unknown Message'),
  unknownWebhook: () => new DiscordApiFailure(404, 10015, 'Unknown Webhook'),
  unknownApplication: () => new DiscordApiFailure(404, 10002, 'Unknown Application'),
  unknownInteraction: () => new DiscordApiFailure(404, 10062, 'Unknown interaction'),
  alreadyAcknowledged: () => new DiscordApiFailure(400, 40060, 'Interaction has already been acknowledged.'),
  otherAuthor: () => new DiscordApiFailure(403, 50005, 'Cannot edit a message authored by another user'),
  emptyMessage: () => new DiscordApiFailure(400, 50006, 'Cannot send an empty message'),
  invalidForm: (errors: unknown) => new DiscordApiFailure(400, 50035, 'Invalid Form Body', errors),
};

/** A field error of an Invalid Form Body answer. */
export function fieldError(code: string, message: string): { _errors: { code: string; message: string }[] } {
  return { _errors: [{ code, message }] };
}

/** The `X-RateLimit-Bucket` of a route. */
export function bucketOf(route: string): string {
  return createHash('sha1').update(route).digest('hex').slice(0, 16);
}

/** The rate-limit headers of a successful call: a bucket that never runs out. */
export function rateLimitHeaders(route: string): Record<string, string> {
  return {
    'x-ratelimit-limit': '5',
    'x-ratelimit-remaining': '4',
    'x-ratelimit-reset': String(Date.now() / 1000 + 5),
    'x-ratelimit-reset-after': '5',
    'x-ratelimit-bucket': bucketOf(route),
  };
}

/** A 429 answer with `retry_after` seconds, as a bucket (or, when global, the whole bot) ran out. */
export function rateLimitedAnswer(route: string, retryAfter: number, global: boolean): RestAnswer {
  return {
    status: 429,
    body: { message: 'You are being rate limited.', retry_after: retryAfter, global, ...(global ? {} : { code: 0 }) },
    headers: {
      'retry-after': String(retryAfter),
      'x-ratelimit-limit': '5',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': String(Date.now() / 1000 + retryAfter),
      'x-ratelimit-reset-after': String(retryAfter),
      'x-ratelimit-bucket': bucketOf(route),
      'x-ratelimit-scope': global ? 'global' : 'user',
      ...(global ? { 'x-ratelimit-global': 'true' } : {}),
    },
  };
}

/** The answer to a scripted failure with `status` (and optionally a JSON code and message). */
export function scriptedAnswer(route: string, failure: { status: number; code?: number; message?: string; retryAfter?: number; global?: boolean }): RestAnswer {
  if (failure.status === 429) return rateLimitedAnswer(route, failure.retryAfter ?? 1, failure.global ?? false);
  const defaults: Record<number, string> = {
    400: 'Invalid Form Body',
    401: '401: Unauthorized',
    403: 'Missing Permissions',
    404: 'Unknown Message',
    500: '500: Internal Server Error',
    502: '502: Bad Gateway',
    503: '503: Service Unavailable',
  };
  const codes: Record<number, number> = { 400: 50035, 403: 50013, 404: 10008 };
  if (failure.status >= 500) return { status: failure.status, body: { message: failure.message ?? defaults[failure.status] ?? 'Server Error', code: 0 } };
  return { status: failure.status, body: { message: failure.message ?? defaults[failure.status] ?? 'Error', code: failure.code ?? codes[failure.status] ?? 0 } };
}

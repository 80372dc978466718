/**
 * The REST client for sending, and one Discord call with rate limits honoured a bounded number
 * of times. A rate limit reaches discord.js's `rejectOnRateLimit` filter in one of two ways:
 *
 * - **Predicted**: discord.js's own accounting (a bucket's `X-RateLimit-*` headers, the lockout
 *   after a global 429, its 50 requests a second) says the call must wait; nothing was sent yet.
 *   discord.js (@discordjs/rest 2.x) emits its `rateLimited` event for these only, with the very
 *   object it then hands the filter, which is how the two are told apart. A wait of up to
 *   {@link maxQueuedWaitMs} is queued by discord.js (in order, which is its job); a longer one
 *   fails at once as a {@link RateLimitWaitTooLongError}, a retryable {@link DeliveryError} with
 *   `retryAfterMs` for the gateway's delivery ledger, never slept in place. A typing indicator is
 *   never queued: it is worth nothing late, and while the bot is at its limit every request it
 *   makes is one fewer for a message; it fails at once, and the gateway shows typing again on its
 *   next tick.
 * - **Answered**: Discord said 429. discord.js would wait and send again as often as Discord
 *   answers one, so the call is rejected as a `RateLimitError` (Discord guarantees it was not
 *   carried out) and waited out here, up to `attempts` times and `maxWaitMs` per wait. Every one
 *   passes here, so this is where the adapter counts Discord's 429s (`policy.onRateLimited`);
 *   predicted waits are not counted.
 *
 * discord.js does not retry 5xx and network failures either (`retries: 0`): a send that failed so
 * may have reached Discord, so it becomes a retryable {@link DeliveryError} and the delivery ledger
 * decides about sending again.
 */
import { REST, RESTEvents, RateLimitError, type RateLimitData } from 'discord.js';
import { retryRateLimited, type RetryPolicy } from '../rate-limit-retry.ts';
import { RateLimitWaitTooLongError, toDeliveryError, type Scrub } from './discord-errors.ts';
import { discordAgent } from './own-agent.ts';

export { defaultRetryPolicy, type RetryPolicy } from '../rate-limit-retry.ts';

/**
 * The longest predicted rate-limit wait discord.js queues a call for, in ms. The buckets of what
 * the adapter sends (messages, edits) hold about 5 calls per channel per 5 s, and discord.js
 * adds its 50 ms offset twice, so a burst in one conversation waits at most about 5.1 s; its
 * 50-requests-a-second accounting waits at most about 1 s at a time. Waits like these are queued
 * (a longer total is fine: each wait is judged on its own). A longer one comes from a long lockout
 * (a global or shared 429 asking for many seconds) and would hold the turn, and every call queued
 * behind it in the bucket, for that long: the delivery ledger takes it instead.
 */
export const maxQueuedWaitMs = 6_000;

/** Routes (as discord.js names buckets) whose calls are never queued for a rate limit. */
const neverQueued = new Set(['/channels/:id/typing']);

/** Calls Discord for the operation `operation` with the policy's retries and scrubbed errors. */
export type CallDiscord = <T>(operation: string, call: (rest: REST) => Promise<unknown>) => Promise<T>;

/**
 * A REST client for the bot that queues short predicted rate-limit waits itself and leaves
 * Discord's 429s, long waits and failed requests to {@link createCallDiscord}.
 */
export function createRest(apiUrl: string | undefined, token: string, timeoutMs: number): REST {
  const predicted = new WeakSet<RateLimitData>();
  const rejectOnRateLimit = (limit: RateLimitData): boolean => {
    if (!predicted.has(limit)) return true;
    const longestWaitMs = neverQueued.has(limit.route) ? 0 : maxQueuedWaitMs;
    if (limit.timeToReset <= longestWaitMs) return false;
    // Thrown where discord.js would throw its RateLimitError, before anything is sent, so that
    // the call fails at once instead of being waited out as a 429 would be.
    throw new RateLimitWaitTooLongError(limit, longestWaitMs);
  };
  const rest = new REST({ ...(apiUrl ? { api: apiUrl } : {}), agent: discordAgent(), retries: 0, rejectOnRateLimit, timeout: timeoutMs }).setToken(token);
  rest.on(RESTEvents.RateLimited, (limit) => predicted.add(limit));
  return rest;
}

/** Makes a {@link CallDiscord} over `rest` for a policy and a token scrubber. */
export function createCallDiscord(rest: REST, policy: RetryPolicy, scrub: Scrub): CallDiscord {
  const retryAfterMs = (error: unknown) => (error instanceof RateLimitError ? error.retryAfter : undefined);
  return async <T>(operation: string, call: (client: REST) => Promise<unknown>): Promise<T> =>
    (await retryRateLimited(policy, () => call(rest), retryAfterMs, (error) => toDeliveryError(error, operation, scrub))) as T;
}

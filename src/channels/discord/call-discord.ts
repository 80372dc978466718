/**
 * The REST client for sending, and one Discord call with rate limits honoured a bounded number
 * of times. discord.js's REST would wait out every 429 in place, as often as Discord answers one,
 * and retry 5xx and network failures three times; here it is told to do neither
 * (`rejectOnRateLimit`, `retries: 0`): a 429 surfaces as a `RateLimitError` (Discord guarantees
 * the call was not carried out) and is waited out here, up to `attempts` times and `maxWaitMs`
 * per wait; a 5xx or network failure of a send may have reached Discord, so it becomes a
 * retryable {@link DeliveryError} and the gateway's delivery ledger decides about sending again.
 */
import { REST, RateLimitError } from 'discord.js';
import { retryRateLimited, type RetryPolicy } from '../rate-limit-retry.ts';
import { toDeliveryError, type Scrub } from './discord-errors.ts';

export { defaultRetryPolicy, type RetryPolicy } from '../rate-limit-retry.ts';

/** Calls Discord for the operation `operation` with the policy's retries and scrubbed errors. */
export type CallDiscord = <T>(operation: string, call: (rest: REST) => Promise<unknown>) => Promise<T>;

/** A REST client for the bot that leaves rate limits and retries to {@link createCallDiscord}. */
export function createRest(apiUrl: string | undefined, token: string, timeoutMs: number): REST {
  return new REST({ ...(apiUrl ? { api: apiUrl } : {}), retries: 0, rejectOnRateLimit: () => true, timeout: timeoutMs }).setToken(token);
}

/** Makes a {@link CallDiscord} over `rest` for a policy and a token scrubber. */
export function createCallDiscord(rest: REST, policy: RetryPolicy, scrub: Scrub): CallDiscord {
  const retryAfterMs = (error: unknown) => (error instanceof RateLimitError ? error.retryAfter : undefined);
  return async <T>(operation: string, call: (client: REST) => Promise<unknown>): Promise<T> =>
    (await retryRateLimited(policy, () => call(rest), retryAfterMs, (error) => toDeliveryError(error, operation, scrub))) as T;
}

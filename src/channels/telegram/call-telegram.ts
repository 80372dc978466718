/**
 * One Bot API call with Telegram's flood control honoured: a 429 answer is waited out for its
 * `retry_after` and tried again, a bounded number of times; a wait longer than allowed, or the
 * last 429, becomes a {@link DeliveryError} carrying `retryAfterMs`. Nothing else is retried
 * here: a send that failed on the network may have arrived, and the caller's delivery ledger
 * decides about sending it again.
 */
import { GrammyError } from 'grammy/web';
import { retryRateLimited, type RetryPolicy } from '../rate-limit-retry.ts';
import { toDeliveryError, type Scrub } from './telegram-errors.ts';

export { defaultRetryPolicy, type RetryPolicy } from '../rate-limit-retry.ts';

/**
 * A function calling the Bot API method `method` with the policy's retries and scrubbed errors;
 * with `once`, a 429 fails at once (still reported to the policy), for calls worth nothing late.
 */
export type CallTelegram = <T>(method: string, call: () => Promise<T>, options?: { once?: boolean }) => Promise<T>;

/** Makes a {@link CallTelegram} for a policy and a token scrubber. */
export function createCallTelegram(policy: RetryPolicy, scrub: Scrub): CallTelegram {
  const retryAfterMs = (error: unknown) => (error instanceof GrammyError && error.error_code === 429 ? (error.parameters.retry_after ?? 1) * 1000 : undefined);
  const once: RetryPolicy = { ...policy, attempts: 1 };
  return (method, call, options) => retryRateLimited(options?.once ? once : policy, call, retryAfterMs, (error) => toDeliveryError(error, method, scrub));
}

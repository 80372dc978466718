/**
 * One Bot API call with Telegram's flood control honoured: a 429 answer is waited out for its
 * `retry_after` and tried again, a bounded number of times; a wait longer than allowed, or the
 * last 429, becomes a {@link DeliveryError} carrying `retryAfterMs`. Nothing else is retried
 * here: a send that failed on the network may have arrived, and the caller's delivery ledger
 * decides about sending it again.
 */
import { GrammyError } from 'grammy/web';
import { toDeliveryError, type Scrub } from './telegram-errors.ts';

/** How rate limits are retried. */
export interface RetryPolicy {
  /** Attempts in all, the first included (default 3). */
  attempts: number;
  /** The longest `retry_after` waited out in place, in ms (default 30,000). */
  maxWaitMs: number;
  /** Waits (injectable for tests). */
  sleep(ms: number): Promise<void>;
}

/** The default {@link RetryPolicy}. */
export const defaultRetryPolicy: RetryPolicy = {
  attempts: 3,
  maxWaitMs: 30_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/** A function calling the Bot API method `method` with the policy's retries and scrubbed errors. */
export type CallTelegram = <T>(method: string, call: () => Promise<T>) => Promise<T>;

/** Makes a {@link CallTelegram} for a policy and a token scrubber. */
export function createCallTelegram(policy: RetryPolicy, scrub: Scrub): CallTelegram {
  return async (method, call) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await call();
      } catch (error) {
        const waitMs = error instanceof GrammyError && error.error_code === 429 ? (error.parameters.retry_after ?? 1) * 1000 : undefined;
        if (waitMs === undefined || attempt >= policy.attempts || waitMs > policy.maxWaitMs) throw toDeliveryError(error, method, scrub);
        await policy.sleep(waitMs);
      }
    }
  };
}

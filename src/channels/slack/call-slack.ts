/**
 * One Web API call with Slack's rate limits honoured: a 429 is waited out for its `Retry-After`
 * and tried again, a bounded number of times; a wait longer than allowed, or the last 429,
 * becomes a {@link DeliveryError} carrying `retryAfterMs`. Slack guarantees a rate-limited call
 * was not carried out, so this never duplicates a message. Nothing else is retried here (the
 * WebClient is built with `retries: 0`): a send that failed on the network may have arrived, and
 * the gateway's delivery ledger decides about sending it again.
 */
import { webApi } from '@slack/bolt';
import { toDeliveryError, type Scrub } from './slack-errors.ts';

/** How rate limits are retried. */
export interface RetryPolicy {
  /** Attempts in all, the first included (default 3). */
  attempts: number;
  /** The longest `Retry-After` waited out in place, in ms (default 30,000). */
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

/** A function calling the Web API method `method` with the policy's retries and scrubbed errors. */
export type CallSlack = <T>(method: string, call: () => Promise<T>) => Promise<T>;

function retryAfterMs(error: unknown): number | undefined {
  const rateLimited = (error as { code?: unknown } | null)?.code === webApi.ErrorCode.RateLimitedError;
  return rateLimited ? (error as webApi.WebAPIRateLimitedError).retryAfter * 1000 : undefined;
}

/** Makes a {@link CallSlack} for a policy and a scrubber. */
export function createCallSlack(policy: RetryPolicy, scrub: Scrub): CallSlack {
  return async (method, call) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await call();
      } catch (error) {
        const waitMs = retryAfterMs(error);
        if (waitMs === undefined || attempt >= policy.attempts || waitMs > policy.maxWaitMs) throw toDeliveryError(error, method, scrub);
        await policy.sleep(waitMs);
      }
    }
  };
}

/**
 * One Web API call with Slack's rate limits honoured: a 429 is waited out for its `Retry-After`
 * and tried again, a bounded number of times; a wait longer than allowed, or the last 429,
 * becomes a {@link DeliveryError} carrying `retryAfterMs`. Slack guarantees a rate-limited call
 * was not carried out, so this never duplicates a message. Nothing else is retried here (the
 * WebClient is built with `retries: 0`): a send that failed on the network may have arrived, and
 * the gateway's delivery ledger decides about sending it again.
 */
import { webApi } from '@slack/bolt';
import { retryRateLimited, type RetryPolicy } from '../rate-limit-retry.ts';
import { toDeliveryError, type Scrub } from './slack-errors.ts';

export { defaultRetryPolicy, type RetryPolicy } from '../rate-limit-retry.ts';

/** A function calling the Web API method `method` with the policy's retries and scrubbed errors. */
export type CallSlack = <T>(method: string, call: () => Promise<T>) => Promise<T>;

function retryAfterMs(error: unknown): number | undefined {
  const rateLimited = (error as { code?: unknown } | null)?.code === webApi.ErrorCode.RateLimitedError;
  return rateLimited ? (error as webApi.WebAPIRateLimitedError).retryAfter * 1000 : undefined;
}

/** Makes a {@link CallSlack} for a policy and a scrubber. */
export function createCallSlack(policy: RetryPolicy, scrub: Scrub): CallSlack {
  return (method, call) => retryRateLimited(policy, call, retryAfterMs, (error) => toDeliveryError(error, method, scrub));
}

/**
 * Waiting out a platform's rate limit in place, shared by the adapters. A 429 means the platform
 * did not carry the call out, so trying it again never duplicates a message; anything else is not
 * retried here (a send that failed on the network may have arrived: the gateway's delivery ledger
 * decides).
 */

/** How rate limits are retried. */
export interface RetryPolicy {
  /** Attempts in all, the first included (default 3). */
  attempts: number;
  /** The longest wait honoured in place, in ms (default 30,000); a longer one fails at once. */
  maxWaitMs: number;
  /** Waits (injectable for tests). */
  sleep(ms: number): Promise<void>;
  /**
   * Told of every rate-limit answer with the wait it asked for, before that wait is slept or
   * given up on: each 429 once, for the log and the metrics. Must not throw.
   */
  onRateLimited?(waitMs: number): void;
}

/** The default {@link RetryPolicy}. */
export const defaultRetryPolicy: RetryPolicy = {
  attempts: 3,
  maxWaitMs: 30_000,
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * Runs `call`, waiting and trying again while it fails with a rate limit (`waitFor` gives the
 * wait in ms, or undefined for any other failure), at most `policy.attempts` times in all and
 * never longer than `policy.maxWaitMs` per wait. The last failure goes through `fail`.
 *
 * @example
 * const sent = await retryRateLimited(policy, () => api.sendMessage(chat, text), retryAfterOf, (error) => toDeliveryError(error));
 */
export async function retryRateLimited<T>(policy: RetryPolicy, call: () => Promise<T>, waitFor: (error: unknown) => number | undefined, fail: (error: unknown) => Error): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await call();
    } catch (error) {
      const waitMs = waitFor(error);
      if (waitMs !== undefined) policy.onRateLimited?.(waitMs);
      if (waitMs === undefined || attempt >= policy.attempts || waitMs > policy.maxWaitMs) throw fail(error);
      await policy.sleep(waitMs);
    }
  }
}

/**
 * The adapter's policy: the defaults, then the options given, with `report` told of every rate
 * limit as well as (not instead of) any `onRateLimited` among the options.
 *
 * @example
 * const policy = reportingRateLimits(options.retry, (waitMs) => link.rateLimited(waitMs));
 */
export function reportingRateLimits(options: Partial<RetryPolicy> | undefined, report: (waitMs: number) => void): RetryPolicy {
  const given = options?.onRateLimited;
  return {
    ...defaultRetryPolicy,
    ...options,
    onRateLimited(waitMs) {
      given?.(waitMs);
      report(waitMs);
    },
  };
}

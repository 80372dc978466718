/**
 * Retry policy of the Agent: which failed attempts are tried again, and after how long.
 * Pure functions, so the policy is tested without running turns.
 */
import type { AgentError } from '../core/errors.ts';
import { ProviderError } from '../core/errors.ts';
import { backoffDelay } from '../core/backoff.ts';

/** Retry behaviour for failed model calls. */
export interface RetrySettings {
  enabled: boolean;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Delay before retry n is `baseDelayMs * multiplier^(n-1)` (jittered, capped at `maxDelayMs`). */
  baseDelayMs: number;
  /** How much longer each retry waits than the one before. Default 2. */
  multiplier: number;
  /**
   * Spread each delay by a random factor between 0.5 and 1.5, so that many conversations failing
   * together (one provider outage) do not all come back at once. A provider's retry-after is
   * waited as asked, without jitter. Default true.
   */
  jitter: boolean;
  /** No delay is longer than this; a provider asking to wait longer (retry-after) is not retried. */
  maxDelayMs: number;
}

/** Defaults: three retries after about 2 s, 4 s, 8 s (each 0.5x to 1.5x). */
export const defaultRetrySettings: RetrySettings = { enabled: true, maxRetries: 3, baseDelayMs: 2_000, multiplier: 2, jitter: true, maxDelayMs: 60_000 };

/**
 * How long to wait before retry number `retry` (1 for the first retry) after `error`, or
 * `undefined` when the attempt must not be retried: the error is not retryable, retries are used
 * up, or the provider asks to wait longer than `maxDelayMs`.
 */
export function retryDelay(error: AgentError, retry: number, settings: RetrySettings, random: () => number = Math.random): number | undefined {
  const maxRetries = settings.enabled ? settings.maxRetries : 0;
  if (!error.retryable || retry > maxRetries) return undefined;
  const retryAfter = error instanceof ProviderError ? error.retryAfterMs : undefined;
  if (retryAfter !== undefined && retryAfter > settings.maxDelayMs) return undefined;
  const policy = { initialDelayMs: settings.baseDelayMs, multiplier: settings.multiplier, maxDelayMs: settings.maxDelayMs };
  // A provider's retry-after is waited as asked (at least the plain backoff), never jittered.
  if (retryAfter !== undefined) return Math.min(settings.maxDelayMs, Math.max(backoffDelay({ ...policy, jitter: false }, retry), retryAfter));
  return backoffDelay({ ...policy, jitter: settings.jitter }, retry, random);
}

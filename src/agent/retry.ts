/**
 * Retry policy of the Agent: which failed attempts are tried again, and after how long.
 * Pure functions, so the policy is tested without running turns.
 */
import type { AgentError } from '../core/errors.ts';
import { ProviderError } from '../core/errors.ts';

/** Retry behaviour for failed model calls. */
export interface RetrySettings {
  enabled: boolean;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** Delay before retry n is `baseDelayMs * 2^(n-1)`. */
  baseDelayMs: number;
  /** A provider asking to wait longer than this (retry-after) is not retried. */
  maxDelayMs: number;
}

/** Defaults: three retries after 2 s, 4 s, 8 s. */
export const defaultRetrySettings: RetrySettings = { enabled: true, maxRetries: 3, baseDelayMs: 2_000, maxDelayMs: 60_000 };

/**
 * How long to wait before retry number `retry` (1 for the first retry) after `error`, or
 * `undefined` when the attempt must not be retried: the error is not retryable, retries are used
 * up, or the provider asks to wait longer than `maxDelayMs`.
 */
export function retryDelay(error: AgentError, retry: number, settings: RetrySettings): number | undefined {
  const maxRetries = settings.enabled ? settings.maxRetries : 0;
  if (!error.retryable || retry > maxRetries) return undefined;
  const retryAfter = error instanceof ProviderError ? error.retryAfterMs : undefined;
  if (retryAfter !== undefined && retryAfter > settings.maxDelayMs) return undefined;
  return Math.min(settings.maxDelayMs, Math.max(settings.baseDelayMs * 2 ** (retry - 1), retryAfter ?? 0));
}

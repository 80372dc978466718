/**
 * Exponential backoff with jitter: how long to wait before retry `n`. Shared by the Agent's retry
 * of model calls and the pipeline engine's retry of nodes. Jitter spreads retries that failed
 * together (one provider outage, many runs) so they do not all come back at the same instant.
 */

/** How the delay grows. */
export interface Backoff {
  /** The delay before the first retry. */
  initialDelayMs: number;
  /** Each further retry waits this many times longer (2: doubling). */
  multiplier: number;
  /** No delay is longer than this (jitter included). */
  maxDelayMs: number;
  /** Multiply each delay by a random factor between 0.5 and 1.5. */
  jitter: boolean;
}

/**
 * The delay before retry `retry` (1 for the first): `initialDelayMs * multiplier^(retry - 1)`,
 * with jitter times a factor in [0.5, 1.5) from `random`, capped at `maxDelayMs`; whole
 * milliseconds.
 */
export function backoffDelay(policy: Backoff, retry: number, random: () => number = Math.random): number {
  const base = policy.initialDelayMs * policy.multiplier ** Math.max(0, retry - 1);
  const spread = policy.jitter ? base * (0.5 + random()) : base;
  return Math.round(Math.min(policy.maxDelayMs, spread));
}

/** Why `policy` is not a usable one, or undefined: a delay below 0, a multiplier below 1, a cap below the first delay. */
export function backoffProblem(policy: Backoff): string | undefined {
  if (!(policy.initialDelayMs >= 0)) return `the first delay must be 0 or more, not ${policy.initialDelayMs} ms`;
  if (!(policy.multiplier >= 1)) return `the multiplier must be 1 or more, not ${policy.multiplier}`;
  if (!(policy.maxDelayMs >= policy.initialDelayMs)) return `the longest delay (${policy.maxDelayMs} ms) must not be shorter than the first (${policy.initialDelayMs} ms)`;
  return undefined;
}

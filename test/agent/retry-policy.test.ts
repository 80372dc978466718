import { describe, expect, it } from 'vitest';
import { ProviderError, ToolError } from '../../src/core/errors.ts';
import { defaultRetrySettings, retryDelay } from '../../src/agent/retry.ts';

const settings = { ...defaultRetrySettings, baseDelayMs: 1_000, maxRetries: 3, maxDelayMs: 30_000, jitter: false };
const overloaded = new ProviderError('busy', { provider: 'anthropic', kind: 'OVERLOADED', statusCode: 529 });

describe('retryDelay', () => {
  it('doubles from the base delay and stops after maxRetries', () => {
    expect([1, 2, 3, 4].map((retry) => retryDelay(overloaded, retry, settings))).toEqual([1_000, 2_000, 4_000, undefined]);
  });

  it('waits at least what retry-after asks, and gives up when that is beyond maxDelayMs', () => {
    const limited = new ProviderError('slow down', { provider: 'openai', kind: 'RATE_LIMIT', statusCode: 429, retryAfterMs: 12_000 });
    expect(retryDelay(limited, 1, settings)).toBe(12_000);
    const tooLong = new ProviderError('come back tomorrow', { provider: 'openai', kind: 'RATE_LIMIT', statusCode: 429, retryAfterMs: 3_600_000 });
    expect(retryDelay(tooLong, 1, settings)).toBeUndefined();
  });

  it('never retries non-retryable errors, or anything when disabled', () => {
    for (const kind of ['AUTH', 'AUTH_PERMANENT', 'BILLING', 'MODEL_NOT_FOUND', 'CONTENT_BLOCKED', 'FORMAT_ERROR'] as const) {
      expect(retryDelay(new ProviderError(kind, { provider: 'anthropic', kind }), 1, settings)).toBeUndefined();
    }
    expect(retryDelay(new ToolError('x', 'shell'), 1, settings)).toBeUndefined();
    expect(retryDelay(overloaded, 1, { ...settings, enabled: false })).toBeUndefined();
  });

  it('grows by its multiplier, and jitter spreads each delay between 0.5x and 1.5x, never past maxDelayMs', () => {
    const tripling = { ...settings, multiplier: 3, maxRetries: 5, maxDelayMs: 20_000 };
    expect([1, 2, 3, 4].map((retry) => retryDelay(overloaded, retry, tripling))).toEqual([1_000, 3_000, 9_000, 20_000]);
    const jittered = { ...tripling, jitter: true };
    expect([1, 2, 3].map((retry) => retryDelay(overloaded, retry, jittered, () => 0))).toEqual([500, 1_500, 4_500]);
    expect([1, 2, 3].map((retry) => retryDelay(overloaded, retry, jittered, () => 0.999_999))).toEqual([1_500, 4_500, 13_500]);
    expect(retryDelay(overloaded, 4, jittered, () => 0.999_999)).toBe(20_000);
    // A retry-after is waited as asked, without jitter.
    const limited = new ProviderError('slow down', { provider: 'openai', kind: 'RATE_LIMIT', statusCode: 429, retryAfterMs: 12_000 });
    expect(retryDelay(limited, 1, jittered, () => 0)).toBe(12_000);
    expect(defaultRetrySettings).toMatchObject({ multiplier: 2, jitter: true });
  });

  it('retries every retryable kind', () => {
    for (const kind of ['RATE_LIMIT', 'OVERLOADED', 'SERVER_ERROR', 'TIMEOUT', 'CONTEXT_OVERFLOW', 'UNKNOWN'] as const) {
      expect(retryDelay(new ProviderError(kind, { provider: 'anthropic', kind }), 1, settings)).toBe(1_000);
    }
  });
});

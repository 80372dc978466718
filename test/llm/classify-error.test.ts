import { describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/core/errors.ts';
import { classifyError, parseRetryAfter } from '../../src/llm/classify-error.ts';
import { redactSecrets } from '../../src/llm/redact-secrets.ts';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');

  it('reads seconds, fractional seconds and retry-after-ms', () => {
    expect(parseRetryAfter(new Headers({ 'retry-after': '12' }), now)).toBe(12_000);
    expect(parseRetryAfter(new Headers({ 'retry-after': '0.5' }), now)).toBe(500);
    expect(parseRetryAfter(new Headers({ 'retry-after-ms': '250', 'retry-after': '9' }), now)).toBe(250);
  });

  it('reads an HTTP date as the time until then, never negative', () => {
    expect(parseRetryAfter({ 'Retry-After': 'Thu, 01 Jan 2026 00:00:30 GMT' }, now)).toBe(30_000);
    expect(parseRetryAfter({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }, now)).toBe(0);
  });

  it('returns undefined without a usable header', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter(new Headers(), now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after': 'soon' }, now)).toBeUndefined();
    expect(parseRetryAfter({ 'retry-after-ms': 'x', 'retry-after': '' }, now)).toBeUndefined();
  });
});

describe('classifyError on values that are not SDK errors', () => {
  it('passes a ProviderError through unchanged', () => {
    const original = new ProviderError('anthropic: overloaded', { provider: 'anthropic', kind: 'OVERLOADED' });
    expect(classifyError(original, 'openai')).toBe(original);
  });

  it('classifies network failures by their cause', () => {
    const reset = new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) });
    const headersTimeout = new TypeError('fetch failed', {
      cause: Object.assign(new Error('Headers Timeout Error'), { code: 'UND_ERR_HEADERS_TIMEOUT' }),
    });
    expect(classifyError(reset, 'openai').kind).toBe('UNKNOWN');
    expect(classifyError(reset, 'openai').message).toBe('openai: request failed: fetch failed: read ECONNRESET');
    expect(classifyError(headersTimeout, 'openai').kind).toBe('TIMEOUT');
    expect(classifyError(new DOMException('The operation timed out.', 'TimeoutError'), 'openai').kind).toBe('TIMEOUT');
  });

  it('classifies SSE error bodies by type, and by status when there is one', () => {
    const sse = (type: string) => ({ error: { type: 'error', error: { type, message: type } } });
    expect(classifyError(sse('overloaded_error'), 'anthropic').kind).toBe('OVERLOADED');
    expect(classifyError(sse('api_error'), 'anthropic').kind).toBe('SERVER_ERROR');
    expect(classifyError(sse('rate_limit_error'), 'anthropic').kind).toBe('RATE_LIMIT');
    expect(classifyError(sse('invalid_request_error'), 'anthropic').kind).toBe('FORMAT_ERROR');
    expect(classifyError({ status: 429, error: { type: 'error', error: { type: 'rate_limit_error', details: { error_code: 'enforced_spend_limit_reached' } } } }, 'anthropic').kind).toBe('BILLING');
  });

  it('classifies quota codes as BILLING whatever the status and message', () => {
    for (const status of [429, 400, undefined]) {
      expect(classifyError({ status, error: { code: 'insufficient_quota', message: 'no' } }, 'openai').kind).toBe('BILLING');
    }
  });

  it('recognizes policy refusals', () => {
    const refusal = { status: 400, error: { message: 'Your request was rejected as a result of our safety system.', code: 'content_policy_violation' } };
    expect(classifyError(refusal, 'openai').kind).toBe('CONTENT_BLOCKED');
  });

  it('treats anything unrecognizable as retryable UNKNOWN', () => {
    const error = classifyError('something odd', 'anthropic');
    expect(error.kind).toBe('UNKNOWN');
    expect(error.retryable).toBe(true);
    expect(error.message).toBe('anthropic: request failed: something odd');
  });

  it('never lets a credential into the message', () => {
    const key = 'sk-proj-AbCdEf0123456789AbCdEf0123456789';
    const error = classifyError(new Error(`request failed with headers {"authorization":"Bearer ${key}","x-api-key":"${key}"}`), 'openai');
    expect(error.message).not.toContain(key);
    expect(error.message).not.toContain('AbCdEf0123456789');
  });

  it('shortens very long provider messages', () => {
    expect(classifyError(new Error('x'.repeat(5000)), 'openai').message.length).toBeLessThan(600);
  });
});

describe('redactSecrets', () => {
  it.each([
    ['Authorization: Bearer abc.def-ghi', 'Authorization: Bearer [redacted]'],
    ['x-api-key: sk-ant-api03-abcdefghijkl', 'x-api-key: [redacted]'],
    ['{"api_key":"hunter2hunter2"}', '{"api_key":"[redacted]"}'],
    ['https://host/v1?key=AIzaSyA1234567890abcdefghijklmnop&x=1', 'https://host/v1?key=[redacted]&x=1'],
    ['Incorrect API key provided: sk-proj-abc123def456.', 'Incorrect API key provided: [redacted-key].'],
    ['bare AIzaSyA1234567890abcdefghijklmnop here', 'bare [redacted-key] here'],
  ])('redacts %s', (input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  it('leaves ordinary text alone', () => {
    const text = 'prompt is too long: 210000 tokens > 200000 maximum; max_tokens: 1024; task-list ok';
    expect(redactSecrets(text)).toBe(text);
  });
});

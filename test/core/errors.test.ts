import { describe, expect, it } from 'vitest';
import {
  AgentError,
  BudgetExhaustedError,
  CancellationError,
  ConfigurationError,
  InternalError,
  LLMError,
  PermissionDeniedError,
  ProviderError,
  ToolError,
  ToolNotFoundError,
  ToolTimeoutError,
} from '../../src/core/errors.ts';

describe('error hierarchy', () => {
  it('gives every error its category and retryable flag', () => {
    const cases: [AgentError, string, boolean][] = [
      [new LLMError('empty answer'), 'LLM', true],
      [new ProviderError('overloaded', { provider: 'anthropic', kind: 'OVERLOADED', statusCode: 529 }), 'PROVIDER', true],
      [new ProviderError('bad key', { provider: 'openai', kind: 'AUTH', statusCode: 401 }), 'PROVIDER', false],
      [new ToolError('failed', 'shell'), 'TOOL', false],
      [new ToolNotFoundError('nope'), 'TOOL', false],
      [new ToolTimeoutError('shell', 100), 'TOOL', false],
      [new BudgetExhaustedError('out of tokens'), 'BUDGET', false],
      [new CancellationError(), 'CANCELLATION', false],
      [new PermissionDeniedError('shell', 'blocked'), 'PERMISSION', false],
      [new ConfigurationError('missing key'), 'CONFIGURATION', false],
      [new InternalError('bug'), 'INTERNAL', false],
    ];
    for (const [error, category, retryable] of cases) {
      expect(error).toBeInstanceOf(AgentError);
      expect(error).toBeInstanceOf(Error);
      expect([error.name, error.category, error.retryable]).toEqual([error.constructor.name, category, retryable]);
    }
  });

  it('carries the fields callers need', () => {
    const provider = new ProviderError('slow down', { provider: 'anthropic', kind: 'RATE_LIMIT', statusCode: 429, retryAfterMs: 5000 });
    expect(provider).toMatchObject({ provider: 'anthropic', statusCode: 429, kind: 'RATE_LIMIT', retryAfterMs: 5000 });
    expect(provider.details).toEqual({ provider: 'anthropic', kind: 'RATE_LIMIT', statusCode: 429 });
    expect(new PermissionDeniedError('shell', 'guardrail').toolName).toBe('shell');
    expect(new ToolNotFoundError('nope')).toBeInstanceOf(ToolError);
    expect(new ToolTimeoutError('shell', 100).message).toBe('Tool shell timed out after 100 ms');
  });
});

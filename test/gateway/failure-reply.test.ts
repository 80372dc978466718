/** What a person reads when their turn fails: the reason once, and advice that can help. */
import { describe, expect, it } from 'vitest';
import { BudgetExhaustedError, CancellationError, ConfigurationError, ProviderError, type ErrorKind } from '../../src/core/errors.ts';
import { SpendingPausedError } from '../../src/gateway/budget/spending-paused.ts';
import { failureReply } from '../../src/gateway/failure-reply.ts';
import { classifyError } from '../../src/llm/classify-error.ts';
import { createModelClient } from '../../src/llm/model-client.ts';
import { createUnconfiguredClient } from '../../src/llm/unconfigured-provider.ts';

/** An SDK error as the providers throw it, with `status`. */
function sdkError(status: number, type: string): unknown {
  return Object.assign(new Error(`${status} ${type}`), { status, error: { type: 'error', error: { type, message: 'nope' } } });
}

/** The sentences of `text`, to check none is said twice. */
function sentences(text: string): string[] {
  return text
    .split(/(?<=[.!?])\s+/)
    .map((sentence) => sentence.trim().toLowerCase())
    .filter(Boolean);
}

/** What the stand-in client fails with when `env` configures no usable model. */
async function unconfiguredError(env: Record<string, string>): Promise<unknown> {
  let reason = '';
  try {
    createModelClient(env);
  } catch (error) {
    if (!(error instanceof ConfigurationError)) throw error;
    reason = error.message;
  }
  for await (const event of createUnconfiguredClient(reason).provider.stream({} as never)) if (event.type === 'error') return event.error;
  throw new Error('the stand-in did not fail');
}

describe('failureReply', () => {
  it.each([
    [401, 'authentication_error'],
    [403, 'permission_error'],
  ])('tells the person a %i means the bot\'s credentials are wrong and to tell the admin, not to try again', (status, type) => {
    const reply = failureReply(classifyError(sdkError(status, type), 'anthropic'));
    expect(reply).toMatch(/this bot's credentials/);
    expect(reply).toContain("Please let the bot's admin know.");
    expect(reply).not.toMatch(/try again/i);
  });

  it.each<[ErrorKind, RegExp]>([
    ['RATE_LIMIT', /Please try again in a moment\.$/],
    ['OVERLOADED', /Please try again in a moment\.$/],
    ['TIMEOUT', /Please try again in a moment\.$/],
    ['BILLING', /run out of credit\. Please let the bot's admin know\.$/],
    ['MODEL_NOT_FOUND', /does not exist\. Please let the bot's admin know\.$/],
    ['CONTEXT_OVERFLOW', /Send \/new to start a fresh conversation\.$/],
    ['CONTENT_BLOCKED', /Please rephrase and try again\.$/],
  ])('gives %s advice that fits it', (kind, advice) => {
    expect(failureReply(new ProviderError('x', { provider: 'openai', kind }))).toMatch(advice);
  });

  it.each([
    [{}, 'No model is configured. Set ANTHROPIC_API_KEY'],
    [{ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' }, 'OPENAI_BASE_URL is set but OPERATOR_MODEL is not'],
    [{ OPERATOR_MODEL: 'mystery' }, 'Unknown model mystery and no provider credentials. Set ANTHROPIC_API_KEY'],
  ])('says once what is missing when no model is configured (%j)', async (env, says) => {
    const reply = failureReply(await unconfiguredError(env));
    expect(reply).toContain(`Sorry, I cannot answer yet. ${says}`);
    const said = sentences(reply);
    expect(new Set(said).size).toBe(said.length);
    expect(reply.match(/no model/gi)?.length ?? 0).toBeLessThanOrEqual(1);
  });

  it("says which spending cap stopped a turn, and that calls are paused for a job's run the kill switch stopped", () => {
    const capped = new BudgetExhaustedError('Not answered: this conversation\'s spending cap of $1.00 a day is reached.', { scope: 'conversation telegram:dm:7', period: 'day', cap: 1 });
    expect(failureReply(capped)).toBe(capped.message);
    expect(failureReply(new SpendingPausedError())).toBe('Not done: model calls are paused by an admin (/budget pause).');
  });

  it('says Stopped. for a cancelled turn, and something neutral for anything else', () => {
    expect(failureReply(new CancellationError())).toBe('Stopped.');
    expect(failureReply(new Error('secret detail'))).toBe('Sorry, something went wrong while answering. Please try again.');
  });
});

/**
 * A turn's deadline (`invoke(text, { timeoutMs })`), with the real Anthropic SDK against the fake
 * model server: a provider that hangs makes the turn retry until the deadline, which fails it
 * with a `TurnTimeoutError` and leaves the session as it was before the turn.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startTurnDeadline } from '../../src/agent/turn-deadline.ts';
import { ProviderError, TurnTimeoutError } from '../../src/core/errors.ts';
import { abortableSleep } from '../../src/core/sleep.ts';
import { createAnthropicProvider } from '../../src/llm/providers/anthropic.ts';
import { createHarness, testApiKey, type Harness } from '../helpers/agent-harness.ts';
import { gateTool } from '../helpers/test-tools.ts';
import { startFakeModelServer } from '../fakes/fake-model-server.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Roles on the active branch of the conversation's session, as a fresh load from the store sees them. */
async function rolesOnDisk(h: Harness): Promise<string[]> {
  return (await h.newAgent().session()).buildContext().messages.map((message) => message.role);
}

/** What `promise` rejects with (fails the test if it resolves). */
async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    (value) => {
      throw new Error(`expected a failure, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

describe('a turn with a deadline', () => {
  it('retries a provider that hangs, then fails at the deadline with TurnTimeoutError; the session is as before the turn', async () => {
    const server = await startFakeModelServer();
    // Calls that send nothing fail after 200 ms and are tried again (real waits, which the deadline cuts short too).
    const provider = createAnthropicProvider({ apiKey: testApiKey, baseURL: server.anthropicBaseURL, timeouts: { firstByteMs: 200, idleMs: 200 } });
    harness = await createHarness({ server, storeDriver: 'fs', agent: { provider, retry: { maxRetries: 1_000, baseDelayMs: 50, maxDelayMs: 200 }, sleep: abortableSleep } });
    try {
      server.enqueue({ text: 'earlier answer' });
      await harness.agent.invoke('earlier question');
      server.setDefault({ text: 'never sent', hangMs: 60_000 });

      const failure = await failureOf(harness.agent.invoke('are you there?', { timeoutMs: 1_500 }));
      expect(failure).toBeInstanceOf(TurnTimeoutError);
      const timeout = failure as TurnTimeoutError;
      expect(timeout.timeoutMs).toBe(1_500);
      expect(timeout.retryable).toBe(false);
      expect(timeout.message).toContain('1.5 s');
      // Why the turn could not finish: the provider's timeouts, each tried again.
      expect(timeout.cause).toBeInstanceOf(ProviderError);
      expect(timeout.cause).toMatchObject({ kind: 'TIMEOUT' });
      expect(server.requests.length).toBeGreaterThanOrEqual(3);
      expect(harness.types(['retry_start']).length).toBeGreaterThanOrEqual(1);
      expect(harness.events.filter((event) => event.type === 'turn_error').map((event) => event.type === 'turn_error' && event.error)).toEqual([failure]);

      // Nothing of the turn is left: not the person's message, not a partial answer.
      expect(await rolesOnDisk(harness)).toEqual(['user', 'assistant']);
      expect(harness.agent.state).toBe('IDLE');
      expect(harness.agent.phase).toBe('idle');
      // The agent answers again once the provider does.
      server.setDefault({ text: 'back' });
      expect((await harness.agent.invoke('again', { timeoutMs: 10_000 })).text).toBe('back');
      expect(await rolesOnDisk(harness)).toEqual(['user', 'assistant', 'user', 'assistant']);
    } finally {
      await server.close();
    }
  });

  it('gives up at once when the wait before the next retry would end past the deadline', async () => {
    harness = await createHarness({ agent: { retry: { baseDelayMs: 10 } } });
    harness.server.enqueue({ error: { status: 429, type: 'rate_limit_error', message: 'slow down', retryAfterSeconds: 30 } }, { text: 'too late' });
    const failure = await failureOf(harness.agent.invoke('hi', { timeoutMs: 10_000 }));
    expect(failure).toBeInstanceOf(TurnTimeoutError);
    expect((failure as TurnTimeoutError).cause).toMatchObject({ kind: 'RATE_LIMIT' });
    // No wait and no second call: the retry could not have started in time.
    expect(harness.sleeps).toEqual([]);
    expect(harness.server.requests).toHaveLength(1);
    expect((await harness.agent.session()).buildContext().messages).toEqual([]);
  });

  it('stops a tool that runs past the deadline, and leaves nothing of the turn', async () => {
    const gate = gateTool();
    harness = await createHarness({ storeDriver: 'fs', agent: { tools: [gate.tool] } });
    harness.server.enqueue({ toolCalls: [{ name: 'wait_gate', arguments: {} }] }, { text: 'never asked for' });
    const failure = await failureOf(harness.agent.invoke('wait for the gate', { timeoutMs: 300 }));
    expect(failure).toBeInstanceOf(TurnTimeoutError);
    // The tool ran and was stopped; no second model call was made.
    await gate.started;
    expect(harness.server.requests).toHaveLength(1);
    expect(await rolesOnDisk(harness)).toEqual([]);
  });

  it('leaves a turn that answers in time alone, and a person stopping the turn is not a timeout', async () => {
    harness = await createHarness({ storeDriver: 'fs' });
    harness.server.enqueue({ text: 'in time' });
    const result = await harness.agent.invoke('quick', { timeoutMs: 10_000 });
    expect(result).toMatchObject({ text: 'in time', aborted: false });

    harness.server.enqueue({ text: 'slow', hangMs: 60_000 });
    const stopped = harness.agent.invoke('stop me', { timeoutMs: 10_000 });
    while (harness.server.requests.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    harness.agent.abort();
    expect(await stopped).toMatchObject({ aborted: true, text: '' });
    // The person's stop keeps their message (as without a deadline).
    expect(await rolesOnDisk(harness)).toEqual(['user', 'assistant', 'user']);
  });

  it('refuses a timeout that is not a positive number; none or one beyond a timer means no deadline', () => {
    for (const bad of [0, -1, Number.NaN]) expect(() => startTurnDeadline(bad, () => undefined)).toThrow(RangeError);
    expect(startTurnDeadline(undefined, () => undefined)).toBeUndefined();
    expect(startTurnDeadline(Number.POSITIVE_INFINITY, () => undefined)).toBeUndefined();
    const deadline = startTurnDeadline(60_000, () => undefined);
    expect(deadline?.remainingMs()).toBeGreaterThan(0);
    deadline?.clear();
  });
});

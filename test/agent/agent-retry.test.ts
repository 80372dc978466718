import { afterEach, describe, expect, it } from 'vitest';
import { ProviderError } from '../../src/core/errors.ts';
import { createHarness } from '../helpers/agent-harness.ts';
import type { Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Roles on the active branch of the conversation's session, as a fresh load from the store sees them. */
async function rolesOnDisk(h: Harness): Promise<string[]> {
  const fresh = h.newAgent();
  return (await fresh.session()).buildContext().messages.map((message) => message.role);
}

describe('Agent retry with rewind', () => {
  it('0 failed attempts: user and answer on disk, no retry events', async () => {
    harness = await createHarness({ storeDriver: 'fs' });
    harness.server.enqueue({ text: 'fine' });
    await harness.agent.invoke('hello');
    expect(await rolesOnDisk(harness)).toEqual(['user', 'assistant']);
    expect(harness.types(['retry_start', 'retry_end'])).toEqual([]);
  });

  it('1 failed attempt: the failed attempt is rewound, the retry answers, delays double', async () => {
    const calls: string[] = [];
    harness = await createHarness({ storeDriver: 'fs', agent: { tools: [echoTool(calls)], retry: { baseDelayMs: 100, jitter: false } } });
    // The first attempt runs a tool, then the follow-up call fails with a 500.
    harness.server.enqueue(
      { toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] },
      { error: { status: 500, message: 'internal' } },
      { text: 'second try worked' },
    );
    const result = await harness.agent.invoke('do it');
    expect(result.text).toBe('second try worked');
    expect(await rolesOnDisk(harness)).toEqual(['user', 'assistant']);
    expect(harness.sleeps).toEqual([100]);
    expect(harness.types(['retry_start', 'retry_end'])).toEqual(['retry_start', 'retry_end']);
    const end = harness.events.find((event) => event.type === 'retry_end');
    expect(end).toMatchObject({ attempt: 1, success: true });
    // The retried request starts again from the user message alone.
    const retried = harness.server.requests[2]!.body.messages;
    expect(retried).toHaveLength(1);
  });

  it('all attempts failed: the user message is rewound too and a clear error is raised', async () => {
    harness = await createHarness({ storeDriver: 'fs', agent: { retry: { maxRetries: 2, baseDelayMs: 10, jitter: false } } });
    harness.server.enqueue({ text: 'earlier answer' });
    await harness.agent.invoke('earlier question');
    for (let i = 0; i < 3; i++) harness.server.enqueue({ error: { status: 529, type: 'overloaded_error', message: 'Overloaded' } });
    const failure = await harness.agent.invoke('doomed').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProviderError);
    expect((failure as ProviderError).kind).toBe('OVERLOADED');
    expect(harness.sleeps).toEqual([10, 20]);
    expect(await rolesOnDisk(harness)).toEqual(['user', 'assistant']);
    expect(harness.agent.state).toBe('IDLE');
    expect(harness.types(['turn_error'])).toEqual(['turn_error']);
    // The agent works again afterwards.
    harness.server.enqueue({ text: 'back' });
    expect((await harness.agent.invoke('again')).text).toBe('back');
  });

  it('does not retry non-retryable errors', async () => {
    harness = await createHarness();
    harness.server.enqueue({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    const failure = await harness.agent.invoke('hi').catch((error: unknown) => error);
    expect((failure as ProviderError).kind).toBe('AUTH');
    expect(harness.server.requests).toHaveLength(1);
    expect(harness.sleeps).toEqual([]);
    expect((await harness.agent.session()).buildContext().messages).toEqual([]);
  });

  it('honours retry-after', async () => {
    harness = await createHarness({ agent: { retry: { baseDelayMs: 10, jitter: false } } });
    harness.server.enqueue({ error: { status: 429, type: 'rate_limit_error', message: 'slow down', retryAfterSeconds: 7 } }, { text: 'ok' });
    await harness.agent.invoke('hi');
    expect(harness.sleeps).toEqual([7_000]);
  });

  it('compacts first on context overflow, then retries', async () => {
    harness = await createHarness({ agent: { compaction: { keepRecentTokens: 1 } } });
    harness.server.enqueue({ text: 'answer one' }, { text: 'answer two' });
    await harness.agent.invoke('question one');
    await harness.agent.invoke('question two');
    harness.server.enqueue(
      { error: { status: 400, type: 'invalid_request_error', message: 'prompt is too long: 210000 tokens > 200000 maximum' } },
      { text: 'SUMMARY OF EARLIER TALK' },
      { text: 'answer three' },
    );
    const result = await harness.agent.invoke('question three');
    expect(result.text).toBe('answer three');
    expect(harness.types(['session_compact', 'retry_start'])).toEqual(['session_compact', 'retry_start']);
    const retried = JSON.stringify(harness.server.requests.at(-1)!.body.messages);
    expect(retried).toContain('SUMMARY OF EARLIER TALK');
    expect(retried).not.toContain('question one');
    expect(retried).toContain('question three');
  });

  it('never puts the API key into an error', async () => {
    harness = await createHarness();
    harness.server.enqueue({ error: { status: 401, message: 'bad key sk-test-secret-key-0123456789' } });
    const failure = (await harness.agent.invoke('hi').catch((error: unknown) => error)) as Error;
    expect(failure.message).not.toContain('sk-test-secret-key-0123456789');
    expect(JSON.stringify(harness.events)).not.toContain('sk-test-secret-key-0123456789');
  });
});

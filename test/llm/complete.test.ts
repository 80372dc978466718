/** `complete`: the non-streaming call, through the real SDKs of both providers. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CancellationError, ProviderError } from '../../src/core/errors.ts';
import { complete } from '../../src/llm/complete.ts';
import { createAnthropicProvider } from '../../src/llm/providers/anthropic.ts';
import { createOpenAIProvider } from '../../src/llm/providers/openai.ts';
import type { Provider, ToolDefinition } from '../../src/llm/types.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { request, secretKey, userText } from './helpers.ts';

let server: FakeModelServer;

beforeAll(async () => {
  server = await startFakeModelServer();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const tools: ToolDefinition[] = [{ name: 'shell', description: 'Run a command', parameters: { type: 'object', properties: { command: { type: 'string' } } } }];

const providers = {
  anthropic: {
    model: 'claude-sonnet-4-6',
    make: (timeouts?: { firstByteMs: number; idleMs: number }) => createAnthropicProvider({ apiKey: secretKey, baseURL: server.anthropicBaseURL, timeouts }),
  },
  openai: {
    model: 'gpt-5.2',
    make: (timeouts?: { firstByteMs: number; idleMs: number }) => createOpenAIProvider({ apiKey: secretKey, baseURL: server.openaiBaseURL, timeouts }),
  },
} as const;

/** Records the retry waits instead of sleeping. */
function recordingSleep(waits: number[]) {
  return async (ms: number) => void waits.push(ms);
}

describe.each(Object.entries(providers))('complete (%s)', (_name, { model, make }) => {
  let provider: Provider;
  beforeAll(() => {
    provider = make();
  });

  it('returns the whole answer: text, reasoning, tool calls, usage and stop reason', async () => {
    server.enqueue({
      thinking: { text: 'Pick the date command.', signature: 'sig-1' },
      text: 'Checking the time.',
      toolCalls: [{ id: 'call_1', name: 'shell', arguments: { command: 'date' } }],
      usage: { input: 42, output: 17 },
    });
    const response = await complete(provider, request(model, [userText('time?')], { tools }));
    expect(response.text).toBe('Checking the time.');
    expect(response.reasoning).toBe('Pick the date command.');
    expect(response.toolCalls).toEqual([{ type: 'tool-call', id: 'call_1', name: 'shell', arguments: { command: 'date' } }]);
    expect(response.stopReason).toBe('tool-calls');
    expect(response.usage).toMatchObject({ input: 42, output: 17 });
    expect(response.message.role).toBe('assistant');
    // Built on the stream: one request, streamed.
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.body.stream).toBe(true);
  });

  it('tries a passing failure again, waiting as the provider asks, and answers', async () => {
    server.enqueue({ error: { status: 529, message: 'overloaded' } }, { error: { status: 429, retryAfterSeconds: 3 } }, { text: 'third time' });
    const waits: number[] = [];
    const response = await complete(provider, request(model), { retry: { jitter: false }, sleep: recordingSleep(waits) });
    expect(response.text).toBe('third time');
    expect(waits).toEqual([1000, 3000]);
    expect(server.requests).toHaveLength(3);
  });

  it('jitters its waits between half and one and a half times the backoff, grows them by the multiplier, and never waits less than retry-after', async () => {
    server.enqueue({ error: { status: 500 } }, { error: { status: 500 } }, { error: { status: 500 } }, { text: 'at last' });
    const waits: number[] = [];
    await complete(provider, request(model), { retry: { maxRetries: 3, baseDelayMs: 1_000, multiplier: 10, maxDelayMs: 1_000_000 }, sleep: recordingSleep(waits) });
    expect(waits).toHaveLength(3);
    waits.forEach((wait, index) => {
      expect(wait).toBeGreaterThanOrEqual(500 * 10 ** index);
      expect(wait).toBeLessThanOrEqual(1_500 * 10 ** index);
    });
    // Spread, not the bare backoff (all three landing on it exactly is a chance of ~1e-9).
    expect(waits).not.toEqual([1_000, 10_000, 100_000]);
    server.reset();
    server.enqueue({ error: { status: 429, retryAfterSeconds: 4 } }, { text: 'waited' });
    const asked: number[] = [];
    await complete(provider, request(model), { sleep: recordingSleep(asked) });
    expect(asked).toEqual([4000]);
  });

  it('throws the ProviderError when the retries are used up, or at once when it cannot pass', async () => {
    server.enqueue({ error: { status: 500 } }, { error: { status: 500 } });
    const waits: number[] = [];
    const failed = await complete(provider, request(model), { retry: { maxRetries: 1, jitter: false }, sleep: recordingSleep(waits) }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(ProviderError);
    expect((failed as ProviderError).kind).toBe('SERVER_ERROR');
    expect(waits).toEqual([1000]);

    server.reset();
    server.enqueue({ error: { status: 401, message: 'invalid x-api-key' } });
    const refused = await complete(provider, request(model), { sleep: recordingSleep(waits) }).catch((error: unknown) => error);
    expect((refused as ProviderError).kind).toBe('AUTH');
    expect(server.requests).toHaveLength(1);
    expect(String(refused)).not.toContain(secretKey);
  });

  it('keeps the provider timeouts: a call that sends nothing fails as TIMEOUT after its retries', async () => {
    const impatient = make({ firstByteMs: 150, idleMs: 150 });
    server.setDefault({ text: 'never', stallAfterHeadersMs: 5_000 });
    const waits: number[] = [];
    const failed = await complete(impatient, request(model), { retry: { maxRetries: 1 }, sleep: recordingSleep(waits) }).catch((error: unknown) => error);
    expect((failed as ProviderError).kind).toBe('TIMEOUT');
    expect((failed as ProviderError).message).toContain('no first byte within 150 ms');
    expect(server.requests).toHaveLength(2);
  });

  it('throws a CancellationError when the signal aborts, during the call or a wait', async () => {
    server.enqueue({ text: 'slow', hangMs: 60_000 });
    const controller = new AbortController();
    const pending = complete(provider, request(model, undefined, { signal: controller.signal })).catch((error: unknown) => error);
    while (server.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    expect(await pending).toBeInstanceOf(CancellationError);

    server.reset();
    server.enqueue({ error: { status: 529 } });
    const waiting = new AbortController();
    const during = complete(provider, request(model, undefined, { signal: waiting.signal }), { retry: { baseDelayMs: 60_000 } }).catch((error: unknown) => error);
    while (server.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    waiting.abort();
    expect(await during).toBeInstanceOf(CancellationError);
    expect(server.requests).toHaveLength(1);
  });
});

/**
 * The agent's model calls through the middleware seam: its usage book counts from the
 * after-response hook, its own middleware and request options reach every call, over the real
 * Anthropic SDK and the fake server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ModelMiddleware } from '../../src/llm/middleware.ts';
import { createHarness, type Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('Agent: model calls through middleware', () => {
  it('counts every call in its book and tells model_usage before the answer reaches the session', async () => {
    const calls: string[] = [];
    harness = await createHarness({ agent: { tools: [echoTool(calls)] } });
    harness.server.enqueue(
      { toolCalls: [{ name: 'echo', arguments: { text: 'a' } }], usage: { input: 100, output: 10 } },
      { text: 'done', usage: { input: 150, output: 5, cacheRead: 40 } },
    );
    await harness.agent.invoke('go');
    expect(harness.agent.totals.usage).toMatchObject({ input: 250, output: 15, cacheRead: 40 });
    expect(harness.agent.totals.cost.total).toBeGreaterThan(0);
    const usageEvents = harness.events.filter((event) => event.type === 'model_usage');
    expect(usageEvents.map((event) => event.type === 'model_usage' && event.usage.input)).toEqual([100, 150]);
    // The hook runs as the answer arrives: its report comes before the engine's message_end.
    const order = harness.types(['model_usage', 'message_end']);
    expect(order.slice(0, 3)).toEqual(['message_end', 'model_usage', 'message_end']);
  });

  it('leaves out an aborted answer the session keeps nothing of, as before', async () => {
    harness = await createHarness({ agent: { reasoningEffort: 'low' } });
    harness.server.enqueue({ thinking: { text: 'pondering at length', signature: 'sig' }, text: 'never shown', heldAfterEvents: { events: 4, by: 'abort-test' }, usage: { input: 300, output: 50 } });
    harness.agent.subscribe((event) => {
      if (event.type === 'thinking_delta') harness!.agent.abort();
    });
    const running = harness.agent.invoke('think');
    const result = await running;
    harness.server.release('abort-test');
    expect(result.aborted).toBe(true);
    expect(harness.agent.totals.usage.input).toBe(0);
    expect(harness.types(['model_usage'])).toEqual([]);
  });

  it('runs the options\' middleware on every call, inside the book, and sends the request options', async () => {
    const seen: string[] = [];
    const tag: ModelMiddleware = {
      name: 'tag',
      beforeRequest: (request) => ({ ...request, metadata: { ...request.metadata, userId: 'hashed-person' } }),
      afterResponse: (message) => void seen.push(`${message.stopReason}:${message.usage?.input}`),
    };
    harness = await createHarness({ agent: { modelMiddleware: [tag], requestOptions: { stopSequences: ['STOP'], topP: 0.5, temperature: 0.2 } } });
    harness.server.enqueue({ text: 'one', usage: { input: 11, output: 1 } }, { text: 'two', usage: { input: 12, output: 1 } });
    await harness.agent.invoke('first');
    await harness.agent.invoke('second');
    expect(seen).toEqual(['stop:11', 'stop:12']);
    for (const recorded of harness.server.requests) {
      expect(recorded.body.stop_sequences).toEqual(['STOP']);
      expect(recorded.body.metadata).toEqual({ user_id: 'hashed-person' });
      // Anthropic's API takes no sampling parameters.
      expect(recorded.body).not.toHaveProperty('top_p');
    }
    expect(harness.agent.totals.usage.input).toBe(23);
  });

  it('keeps counting when a usage listener throws', async () => {
    harness = await createHarness();
    harness.agent.subscribe((event) => {
      if (event.type === 'model_usage') throw new Error('listener broke');
    });
    harness.server.enqueue({ text: 'fine', usage: { input: 7, output: 2 } });
    expect((await harness.agent.invoke('hi')).text).toBe('fine');
    expect(harness.agent.totals.usage.input).toBe(7);
  });
});

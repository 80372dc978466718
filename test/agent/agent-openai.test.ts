import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderError } from '../../src/core/errors.ts';
import { createHarness } from '../helpers/agent-harness.ts';
import type { Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

describe('Agent over an OpenAI-compatible server', () => {
  it('runs tool rounds, records usage with cached tokens and costs', async () => {
    const calls: string[] = [];
    harness = await createHarness({ protocol: 'openai', agent: { tools: [echoTool(calls)] } });
    harness.server.enqueue(
      { toolCalls: [{ name: 'echo', arguments: { text: 'from openai' } }], usage: { input: 1000, output: 20, cacheRead: 600 } },
      { text: 'echoed', usage: { input: 1100, output: 5, cacheRead: 1000 } },
    );
    const result = await harness.agent.invoke('echo please');
    expect(result.text).toBe('echoed');
    expect(calls).toEqual(['from openai']);
    expect(harness.server.requests.map((request) => request.protocol)).toEqual(['openai', 'openai']);
    const second = harness.server.requests[1]!.body.messages;
    expect(second.map((message: { role: string }) => message.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    const stats = await harness.agent.sessionStats();
    expect(stats.calls).toBe(2);
    expect(stats.usage.cacheRead).toBe(1600);
    expect(stats.cost.total).toBeGreaterThan(0);
    const usageEvents = harness.events.filter((event) => event.type === 'model_usage');
    expect(usageEvents).toHaveLength(2);
  });

  it('retries a 503 and gives up on a 404 model', async () => {
    harness = await createHarness({ protocol: 'openai' });
    harness.server.enqueue({ error: { status: 503, message: 'busy' } }, { text: 'ok now' });
    expect((await harness.agent.invoke('hi')).text).toBe('ok now');
    harness.server.enqueue({ error: { status: 404, message: 'The model does not exist', code: 'model_not_found' } });
    const failure = await harness.agent.invoke('again').catch((error: unknown) => error);
    expect((failure as ProviderError).kind).toBe('MODEL_NOT_FOUND');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import type { ProviderError } from '../../src/core/errors.ts';
import { createHarness } from '../helpers/agent-harness.ts';
import type { Harness } from '../helpers/agent-harness.ts';
import { echoTool } from '../helpers/test-tools.ts';
import { getModelInfo } from '../../src/llm/catalog.ts';

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

  it('sends its temperature and output cap with every model call of a turn (the tool round included)', async () => {
    harness = await createHarness({ protocol: 'openai', agent: { model: 'gpt-4.1', modelInfo: getModelInfo('gpt-4.1'), temperature: 0.4, maxTokens: 321, tools: [echoTool([])] } });
    harness.server.enqueue({ toolCalls: [{ name: 'echo', arguments: { text: 'x' } }] }, { text: 'done' });
    await harness.agent.invoke('go');
    expect(harness.server.requests.map((request) => [request.body.temperature, request.body.max_completion_tokens])).toEqual([
      [0.4, 321],
      [0.4, 321],
    ]);
    // Unset, none is sent: the provider's default holds.
    const plain = harness.newAgent({ temperature: undefined, maxTokens: undefined });
    await plain.invoke('again');
    expect(harness.server.requests.at(-1)!.body).not.toHaveProperty('temperature');
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

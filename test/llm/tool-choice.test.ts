/** `toolChoice` on the wire of both providers, through the real SDKs. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../src/llm/providers/anthropic.ts';
import { createOpenAIProvider } from '../../src/llm/providers/openai.ts';
import type { Provider, ToolChoice, ToolDefinition } from '../../src/llm/types.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { finalError, finalMessage, request, run, secretKey, userText } from './helpers.ts';

let server: FakeModelServer;
let anthropic: Provider;
let openai: Provider;

beforeAll(async () => {
  server = await startFakeModelServer();
  anthropic = createAnthropicProvider({ apiKey: secretKey, baseURL: server.anthropicBaseURL });
  openai = createOpenAIProvider({ apiKey: secretKey, baseURL: server.openaiBaseURL });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const tools: ToolDefinition[] = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'shell', description: 'Run a command', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
];

describe('tool choice: Anthropic', () => {
  it.each([
    ['auto', { type: 'auto' }],
    ['none', { type: 'none' }],
    ['required', { type: 'any' }],
    [{ name: 'shell' }, { type: 'tool', name: 'shell' }],
  ] as [ToolChoice, unknown][])('sends %j as tool_choice %j', async (choice, wire) => {
    await run(anthropic, request('claude-sonnet-4-6', [userText('go')], { tools, toolChoice: choice }));
    expect(server.requests[0]?.body.tool_choice).toEqual(wire);
  });

  it('sends no tool_choice when unset or without tools', async () => {
    await run(anthropic, request('claude-sonnet-4-6', [userText('go')], { tools }));
    await run(anthropic, request('claude-sonnet-4-6', [userText('go')], { toolChoice: 'required' }));
    expect(server.requests.map((recorded) => 'tool_choice' in recorded.body)).toEqual([false, false]);
  });

  it('runs the named tool the model was made to call', async () => {
    server.enqueue({ toolCalls: [{ id: 'toolu_1', name: 'shell', arguments: { command: 'date' } }] });
    const message = finalMessage(await run(anthropic, request('claude-sonnet-4-6', [userText('go')], { tools, toolChoice: { name: 'shell' } })));
    expect(message.stopReason).toBe('tool-calls');
    expect(message.content).toEqual([{ type: 'tool-call', id: 'toolu_1', name: 'shell', arguments: { command: 'date' } }]);
  });

  it('leaves thinking off when the choice forces a tool call (the API refuses both), and keeps it with auto or none', async () => {
    for (const choice of ['required', { name: 'shell' }, 'auto', 'none'] as ToolChoice[]) {
      await run(anthropic, request('claude-sonnet-4-6', [userText('go')], { tools, toolChoice: choice, reasoningEffort: 'medium' }));
    }
    expect(server.requests.map((recorded) => recorded.body.thinking?.budget_tokens)).toEqual([undefined, undefined, 8192, 8192]);
    expect(server.requests.every((recorded) => recorded.body.tool_choice !== undefined)).toBe(true);
  });

  it('the fake refuses thinking with a forced tool, as the API does', async () => {
    // Proof that the fake would catch a provider sending both: a request built by hand.
    const response = await fetch(`${server.anthropicBaseURL}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': secretKey },
      body: JSON.stringify({ model: 'm', max_tokens: 4000, messages: [], tools, tool_choice: { type: 'any' }, thinking: { type: 'enabled', budget_tokens: 2048 } }),
    });
    expect(response.status).toBe(400);
    expect(await response.text()).toContain('Thinking may not be enabled when tool_choice forces tool use');
  });
});

describe('tool choice: OpenAI', () => {
  it.each([
    ['auto', 'auto'],
    ['none', 'none'],
    ['required', 'required'],
    [{ name: 'read_file' }, { type: 'function', function: { name: 'read_file' } }],
  ] as [ToolChoice, unknown][])('sends %j as tool_choice %j', async (choice, wire) => {
    await run(openai, request('gpt-5.2', [userText('go')], { tools, toolChoice: choice }));
    expect(server.requests[0]?.body.tool_choice).toEqual(wire);
  });

  it('sends no tool_choice when unset or without tools', async () => {
    await run(openai, request('gpt-5.2', [userText('go')], { tools }));
    await run(openai, request('gpt-5.2', [userText('go')], { toolChoice: 'none' }));
    expect(server.requests.map((recorded) => 'tool_choice' in recorded.body)).toEqual([false, false]);
  });

  it('reports a choice naming a tool that is not offered as the API refuses it: a non-retryable FORMAT_ERROR', async () => {
    const { error } = finalError(await run(openai, request('gpt-5.2', [userText('go')], { tools, toolChoice: { name: 'deploy' } })));
    expect(error.kind).toBe('FORMAT_ERROR');
    expect(error.retryable).toBe(false);
    expect(error.message).toContain("no function named 'deploy'");
  });
});

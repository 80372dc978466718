/** `generateObject`: structured output through the real SDKs of both providers. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigurationError } from '../../src/core/errors.ts';
import { generateObject, NoObjectGeneratedError, objectJsonSchema, fitsStrictMode } from '../../src/llm/generate-object.ts';
import { createAnthropicProvider } from '../../src/llm/providers/anthropic.ts';
import { createOpenAIProvider } from '../../src/llm/providers/openai.ts';
import type { Provider } from '../../src/llm/types.ts';
import { startFakeModelServer, type FakeModelServer, type ReplySpec } from '../fakes/fake-model-server.ts';
import { secretKey, userText } from './helpers.ts';

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

const decision = z.object({
  next: z.enum(['implement', 'ask', 'stop']),
  reason: z.string().min(3),
  confidence: z.number().min(0).max(1),
});

/** How each provider's model gives an object: Anthropic calls the response tool, OpenAI writes JSON text. */
const protocols = {
  anthropic: {
    provider: () => anthropic,
    model: 'claude-sonnet-4-6',
    reply: (value: unknown, name = 'response'): ReplySpec => ({ toolCalls: [{ name, arguments: value as Record<string, unknown> }] }),
  },
  openai: {
    provider: () => openai,
    model: 'gpt-5.2',
    reply: (value: unknown, _name?: string): ReplySpec => ({ text: JSON.stringify(value) }),
  },
} as const;

describe.each(Object.entries(protocols))('generateObject (%s)', (protocol, { provider, model, reply }) => {
  it('returns the parsed, validated object with the usage', async () => {
    server.enqueue({ ...reply({ next: 'implement', reason: 'the plan is approved', confidence: 0.9 }), usage: { input: 80, output: 20 } });
    const result = await generateObject({ provider: provider(), model, schema: decision, system: 'You route a pipeline.', prompt: 'What next?' });
    expect(result.object).toEqual({ next: 'implement', reason: 'the plan is approved', confidence: 0.9 });
    expect(result.attempts).toBe(1);
    expect(result.usage).toMatchObject({ input: 80, output: 20 });
    expect(JSON.parse(result.text)).toEqual(result.object);
    expect(result.message.stopReason).toBe('stop');
  });

  it("sends the schema as the provider's structured output", async () => {
    server.enqueue(reply({ next: 'ask', reason: 'unclear goal', confidence: 0.4 }));
    await generateObject({ provider: provider(), model, schema: decision, prompt: 'What next?', description: 'The next step.' });
    const body = server.requests[0]?.body;
    const schema = {
      type: 'object',
      properties: {
        next: { type: 'string', enum: ['implement', 'ask', 'stop'] },
        reason: { type: 'string', minLength: 3 },
        confidence: { type: 'number', minimum: 0, maximum: 1 },
      },
      required: ['next', 'reason', 'confidence'],
      additionalProperties: false,
    };
    if (protocol === 'anthropic') {
      expect(body.tools).toEqual([{ name: 'response', description: 'The next step.', input_schema: schema, cache_control: { type: 'ephemeral' } }]);
      expect(body.tool_choice).toEqual({ type: 'tool', name: 'response' });
    } else {
      expect(body.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'response', description: 'The next step.', schema, strict: true } });
      expect(body.tools).toBeUndefined();
    }
    expect(body.messages.at(-1)).toMatchObject({ role: 'user' });
  });

  it('shows an invalid reply to the model with what was wrong, once, and takes the corrected one', async () => {
    server.enqueue(reply({ next: 'deploy', reason: 'ok', confidence: 2 }), reply({ next: 'stop', reason: 'nothing left to do', confidence: 1 }));
    const result = await generateObject({ provider: provider(), model, schema: decision, prompt: 'What next?' });
    expect(result.object).toEqual({ next: 'stop', reason: 'nothing left to do', confidence: 1 });
    expect(result.attempts).toBe(2);
    expect(result.usage.input).toBe(20);
    const retry = server.requests[1]?.body;
    const sent = JSON.stringify(retry.messages);
    expect(sent).toContain('not a valid \\"response\\" object');
    expect(sent).toContain('next: Invalid option');
    expect(sent).toContain('reason: Too small');
    expect(sent).toContain('confidence: Too big');
    // The bad reply goes back as the assistant's turn, before the correction.
    const roles = retry.messages.map((message: { role: string }) => message.role).filter((role: string) => role !== 'system');
    expect(roles).toEqual(['user', 'assistant', 'user']);
  });

  it('fails after two invalid replies with an error naming the problems', async () => {
    server.enqueue(reply({ next: 'deploy', reason: 'first', confidence: 0.5 }), reply({ next: 'implement', reason: 'second try', confidence: 'high' }));
    const failed = await generateObject({ provider: provider(), model, schema: decision, prompt: 'What next?' }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(NoObjectGeneratedError);
    const error = failed as NoObjectGeneratedError;
    expect(error.category).toBe('LLM');
    expect(error.problems).toEqual(['confidence: Invalid input: expected number, received string']);
    expect(error.message).toContain(`${model} gave no valid "response" object in 2 attempts: confidence: Invalid input: expected number, received string`);
    expect(error.message).toContain('"confidence":"high"');
    expect(error.usage.input).toBe(20);
    expect(server.requests).toHaveLength(2);
  });

  it('wraps a schema whose root is not an object as { value } and unwraps the answer', async () => {
    server.enqueue(reply({ value: ['a.ts', 'b.ts'] }, 'files'));
    const result = await generateObject({ provider: provider(), model, schema: z.array(z.string()), name: 'files', prompt: 'Which files?' });
    expect(result.object).toEqual(['a.ts', 'b.ts']);
    const body = server.requests[0]?.body;
    const sent = protocol === 'anthropic' ? body.tools[0].input_schema : body.response_format.json_schema.schema;
    expect(sent).toEqual({ type: 'object', properties: { value: { type: 'array', items: { type: 'string' } } }, required: ['value'], additionalProperties: false });
  });
});

describe('generateObject: provider specifics', () => {
  it('Anthropic: streams the object as text, and ends with stop, not tool calls', async () => {
    server.enqueue({ toolCalls: [{ name: 'verdict', arguments: { next: 'ask', reason: 'need the goal', confidence: 0.2 } }], chunkSize: 5 });
    const deltas: string[] = [];
    const stream = anthropic.stream({
      model: 'claude-sonnet-4-6',
      systemPrompt: '',
      messages: [userText('next?')],
      responseFormat: { type: 'json_schema', name: 'verdict', schema: objectJsonSchema(decision).schema },
    });
    let end;
    for await (const event of stream) {
      if (event.type === 'text-delta') deltas.push(event.text);
      if (event.type === 'message-end') end = event.message;
      expect(event.type).not.toBe('tool-call-start');
    }
    expect(deltas.length).toBeGreaterThan(1);
    expect(JSON.parse(deltas.join(''))).toEqual({ next: 'ask', reason: 'need the goal', confidence: 0.2 });
    expect(end).toMatchObject({ stopReason: 'stop', content: [{ type: 'text' }] });
  });

  it("Anthropic: with the caller's tools too, lets the model call one of them or answer (tool_choice any), without thinking", async () => {
    server.enqueue({ toolCalls: [{ id: 'toolu_7', name: 'shell', arguments: { command: 'ls' } }] });
    const tools = [{ name: 'shell', description: 'Run a command', parameters: { type: 'object', properties: { command: { type: 'string' } } } }];
    const events = [];
    for await (const event of anthropic.stream({
      model: 'claude-sonnet-4-6',
      systemPrompt: '',
      messages: [userText('next?')],
      tools,
      reasoningEffort: 'high',
      responseFormat: { type: 'json_schema', name: 'response', schema: objectJsonSchema(decision).schema },
    })) {
      events.push(event);
    }
    const body = server.requests[0]?.body;
    expect(body.tool_choice).toEqual({ type: 'any' });
    expect(body.tools.map((tool: { name: string }) => tool.name)).toEqual(['shell', 'response']);
    expect(body.thinking).toBeUndefined();
    expect(events.at(-1)).toMatchObject({ type: 'message-end', message: { stopReason: 'tool-calls', content: [{ type: 'tool-call', name: 'shell' }] } });
  });

  it('OpenAI: turns strict mode off for a schema with optional fields, and sends the reasoning effort', async () => {
    server.enqueue({ text: '{"title":"Fix the bug"}' });
    const schema = z.object({ title: z.string(), body: z.string().optional() });
    const result = await generateObject({ provider: openai, model: 'o3', schema, prompt: 'A title?', reasoningEffort: 'low' });
    expect(result.object).toEqual({ title: 'Fix the bug' });
    const body = server.requests[0]?.body;
    expect(body.response_format.json_schema.strict).toBe(false);
    expect(body.reasoning_effort).toBe('low');
  });

  it('OpenAI: a reply that is not JSON is retried with the parse error, and one cut off says so', async () => {
    server.enqueue({ text: '{"next": "stop", "reason": "do', stopReason: 'length' }, { text: 'Sure! {"next"' });
    const failed = (await generateObject({ provider: openai, model: 'gpt-5.2', schema: decision, prompt: 'next?' }).catch((error: unknown) => error)) as NoObjectGeneratedError;
    expect(failed).toBeInstanceOf(NoObjectGeneratedError);
    expect(failed.problems[0]).toMatch(/^the reply is not JSON: /);
    expect(JSON.stringify(server.requests[1]?.body.messages)).toContain('the reply is not JSON (cut off at the token limit)');
  });

  it('refuses what cannot be asked for, before any call', async () => {
    await expect(generateObject({ provider: openai, model: 'gpt-5.2', schema: z.object({ at: z.date() }), prompt: 'when?' })).rejects.toThrow(ConfigurationError);
    await expect(generateObject({ provider: openai, model: 'gpt-5.2', schema: decision, name: 'a name', prompt: 'x' })).rejects.toThrow(/must be 1-64 characters/);
    await expect(generateObject({ provider: openai, model: 'gpt-5.2', schema: decision })).rejects.toThrow(/give a prompt or messages/);
    expect(server.requests).toHaveLength(0);
  });

  it('says which schemas fit strict mode', () => {
    expect(fitsStrictMode(objectJsonSchema(decision).schema)).toBe(true);
    expect(fitsStrictMode(objectJsonSchema(z.object({ a: z.object({ b: z.string().optional() }) })).schema)).toBe(false);
    expect(fitsStrictMode(objectJsonSchema(z.object({ tags: z.record(z.string(), z.string()) })).schema)).toBe(false);
    expect(fitsStrictMode(objectJsonSchema(z.object({ items: z.array(z.object({ id: z.number() })) })).schema)).toBe(true);
  });
});

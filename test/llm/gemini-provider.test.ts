/**
 * Gemini through Google's OpenAI-compatible endpoint: the provider the registry makes from
 * GEMINI_API_KEY / GOOGLE_API_KEY (the OpenAI provider with the `gemini` dialect, the real
 * `openai` SDK) against the fake model server's Gemini endpoint (`/v1beta/openai/`), which
 * answers as Google's does: thought signatures on tool calls (refusing a Gemini 3 request that
 * drops them), thought tokens in `total_tokens` only, errors as a list.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { computeCost } from '../../src/llm/cost.ts';
import { getModelInfo } from '../../src/llm/catalog.ts';
import { createModelClient, providerRegistry } from '../../src/llm/model-client.ts';
import { foreignCallSignature } from '../../src/llm/providers/gemini-dialect.ts';
import type { AssistantMessage, Message, Provider, ToolCallPart, ToolDefinition } from '../../src/llm/types.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { finalError, finalMessage, request, run, userText } from './helpers.ts';

/** A key in the shape of Google's: no message may ever show it. */
const geminiKey = 'AIzaSyFAKE-gemini-key-0123456789abcdefXYZ';

let server: FakeModelServer;
let gemini: Provider;

beforeAll(async () => {
  server = await startFakeModelServer();
  gemini = providerRegistry.gemini({ GEMINI_API_KEY: geminiKey, GEMINI_BASE_URL: server.geminiBaseURL });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const tools: ToolDefinition[] = [{ name: 'get_weather', description: 'The weather in a city', parameters: { type: 'object', properties: { city: { type: 'string' } } } }];

/** The assistant message and the result of its one tool call, as the agent would send them back. */
function withToolResult(message: AssistantMessage, call: ToolCallPart, result: string): Message[] {
  return [message, { role: 'tool', content: [{ type: 'tool-result', toolCallId: call.id, toolName: call.name, content: [{ type: 'text', text: result }], isError: false }] }];
}

describe('Gemini provider', () => {
  it('streams from /v1beta/openai/chat/completions with the Gemini key, max_tokens and the reasoning effort as Gemini takes them', async () => {
    server.enqueue({ text: 'Sunny, says Gemini.', chunkSize: 4 });
    const events = await run(gemini, request('gemini-2.5-flash', [userText('weather?')], { maxTokens: 500, reasoningEffort: 'high', tools }));
    const message = finalMessage(events);
    expect(message.content).toEqual([{ type: 'text', text: 'Sunny, says Gemini.' }]);
    expect(message.provider).toBe('gemini');
    const [recorded] = server.requests;
    expect(recorded?.path).toBe('/v1beta/openai/chat/completions');
    expect(recorded?.headers.authorization).toBe(`Bearer ${geminiKey}`);
    expect(recorded?.body).toMatchObject({ model: 'gemini-2.5-flash', stream: true, stream_options: { include_usage: true }, max_tokens: 500, reasoning_effort: 'high' });
    expect(recorded?.body).not.toHaveProperty('max_completion_tokens');
  });

  it('counts thought tokens, which the endpoint reports in total_tokens only, as output, and prices them from the catalog', async () => {
    server.enqueue({ text: 'Forty-two.', usage: { input: 1_000, output: 20, reasoning: 300, cacheRead: 200 } });
    const message = finalMessage(await run(gemini, request('gemini-2.5-pro')));
    expect(message.usage).toEqual({ input: 1_000, output: 320, cacheRead: 200, cacheWrite: 0, reasoning: 300 });
    const cost = computeCost(message.usage!, getModelInfo('gemini-2.5-pro'));
    // 1,000 x $1.25 + 320 x $10 + 200 x $0.3125 per million tokens.
    expect(cost.total).toBeCloseTo((1_000 * 1.25 + 320 * 10 + 200 * 0.3125) / 1e6, 12);
  });

  it('keeps a tool call thought signature and sends it back, so a Gemini 3 model takes the round trip', async () => {
    server.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Oslo' }, thoughtSignature: 'sig-oslo-1' }] }, { text: 'Oslo: 4 degrees.' });
    const first = finalMessage(await run(gemini, request('gemini-3-flash-preview', [userText('weather in Oslo?')], { tools })));
    const call = first.content.find((part): part is ToolCallPart => part.type === 'tool-call')!;
    expect(call).toMatchObject({ name: 'get_weather', arguments: { city: 'Oslo' }, signature: 'sig-oslo-1' });

    const second = finalMessage(await run(gemini, request('gemini-3-flash-preview', [userText('weather in Oslo?'), ...withToolResult(first, call, '4 degrees')], { tools })));
    expect(second.content).toEqual([{ type: 'text', text: 'Oslo: 4 degrees.' }]);
    const sent = server.requests[1]?.body as { messages: { role: string; tool_calls?: unknown[] }[] };
    const assistant = sent.messages.find((message) => message.role === 'assistant');
    expect(assistant?.tool_calls).toEqual([
      { id: call.id, type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' }, extra_content: { google: { thought_signature: 'sig-oslo-1' } } },
    ]);
  });

  it('marks a tool call another provider made with the placeholder Google documents; without any signature a Gemini 3 model refuses the request', async () => {
    const foreign: AssistantMessage = { role: 'assistant', content: [{ type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: { city: 'Oslo' } }] };
    server.enqueue({ text: 'Cold.' });
    const answered = finalMessage(await run(gemini, request('gemini-3-pro-preview', [userText('hi'), ...withToolResult(foreign, foreign.content[0] as ToolCallPart, 'cold')], { tools })));
    expect(answered.content).toEqual([{ type: 'text', text: 'Cold.' }]);
    const sent = server.requests.at(-1)?.body as { messages: { role: string; tool_calls?: { extra_content?: unknown }[] }[] };
    const calls = sent.messages.find((message) => message.role === 'assistant')?.tool_calls;
    expect(calls?.[0]?.extra_content).toEqual({ google: { thought_signature: foreignCallSignature } });
    // The same body without it is what the endpoint refuses (a 400, as a list, naming the signature).
    delete calls![0]!.extra_content;
    const refused = await fetch(`${server.geminiBaseURL}chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${geminiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(sent) });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(await refused.json())).toContain('thought_signature');
  });

  it('never shows OpenAI the signatures Gemini made (a conversation that switched providers)', async () => {
    const openai = providerRegistry.openai({ OPENAI_API_KEY: 'sk-test', OPENAI_BASE_URL: server.openaiBaseURL });
    const signed: AssistantMessage = { role: 'assistant', content: [{ type: 'tool-call', id: 'call_2', name: 'get_weather', arguments: {}, signature: 'sig-x' }] };
    await run(openai, request('gpt-5.2', [userText('hi'), ...withToolResult(signed, signed.content[0] as ToolCallPart, 'x')], { tools }));
    expect(server.requests.at(-1)?.rawBody).not.toContain('sig-x');
    expect(server.requests.at(-1)?.rawBody).not.toContain('extra_content');
  });

  it('sends images as data URLs', async () => {
    await run(gemini, request('gemini-2.5-flash', [{ role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image', mediaType: 'image/png', data: 'iVBORw0KGgo=' }] }]));
    expect(server.requests[0]?.body.messages[1]).toEqual({
      role: 'user',
      content: [
        { type: 'text', text: 'what is this?' },
        { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
      ],
    });
  });

  it("reads Google's errors, sent as a list: a rate limit with its wait, a wrong key as an authentication failure; the key is never in the message", async () => {
    server.enqueue({ error: { status: 429, message: 'Resource has been exhausted (e.g. check quota).', retryAfterSeconds: 7 } });
    const limited = finalError(await run(gemini, request('gemini-2.5-flash')));
    expect(limited.error).toMatchObject({ provider: 'gemini', kind: 'RATE_LIMIT', statusCode: 429, retryAfterMs: 7_000 });
    expect(limited.error.message).toContain('Resource has been exhausted');

    server.enqueue({ error: { status: 400, message: `API key not valid. Please pass a valid API key. (${geminiKey})` } });
    const refused = finalError(await run(gemini, request('gemini-2.5-flash')));
    expect(refused.error).toMatchObject({ kind: 'AUTH', statusCode: 400, retryable: false });
    expect(refused.error.message).not.toContain(geminiKey);
  });

  it('never sends an OpenAI key to Google, and reads GOOGLE_API_KEY', async () => {
    server.enqueue({ text: 'one' }, { text: 'two' });
    const openaiKey = 'sk-openai-must-stay-home-0123456789';
    await run(createModelClient({ OPENAI_API_KEY: openaiKey, GEMINI_BASE_URL: server.geminiBaseURL, OPERATOR_MODEL: 'gemini-flash' }).provider, request('gemini-3-flash-preview'));
    expect(server.requests[0]?.rawBody).not.toContain(openaiKey);
    expect(server.requests[0]?.headers.authorization).not.toContain(openaiKey);
    await run(providerRegistry.gemini({ GOOGLE_API_KEY: geminiKey, GEMINI_BASE_URL: server.geminiBaseURL }), request('gemini-2.5-flash'));
    expect(server.requests[1]?.headers.authorization).toBe(`Bearer ${geminiKey}`);
  });
});

/** The fake model server itself, driven by the real SDKs without our providers. */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';

let server: FakeModelServer;
let anthropic: Anthropic;
let openai: OpenAI;

beforeAll(async () => {
  server = await startFakeModelServer();
  anthropic = new Anthropic({ apiKey: 'test-key', baseURL: server.anthropicBaseURL, maxRetries: 0 });
  openai = new OpenAI({ apiKey: 'test-key', baseURL: server.openaiBaseURL, maxRetries: 0 });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

describe('fake model server', () => {
  it('answers non-streamed requests with JSON messages', async () => {
    server.enqueue({ text: 'plain', toolCalls: [{ id: 't1', name: 'f', arguments: { a: 1 } }], usage: { input: 3, output: 4 } });
    const message = await anthropic.messages.create({ model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
    expect(message.content).toEqual([
      { type: 'text', text: 'plain' },
      { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } },
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage.input_tokens).toBe(3);

    server.enqueue({ text: 'plain too' });
    const completion = await openai.chat.completions.create({ model: 'gpt-5.2', messages: [{ role: 'user', content: 'hi' }] });
    expect(completion.choices[0]?.message.content).toBe('plain too');
    expect(completion.choices[0]?.finish_reason).toBe('stop');
  });

  it('answers queued replies in order across protocols, then the default', async () => {
    server.enqueue({ text: 'first' }, { text: 'second' });
    expect(server.pending()).toBe(2);
    const first = await anthropic.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] });
    const second = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const third = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(first.content).toEqual([{ type: 'text', text: 'first' }]);
    expect(second.choices[0]?.message.content).toBe('second');
    expect(third.choices[0]?.message.content).toBe('ok');
    expect(server.pending()).toBe(0);
    expect(server.requests.map((recorded) => recorded.protocol)).toEqual(['anthropic', 'openai', 'openai']);
  });

  it('lets a function choose the reply from the recorded request', async () => {
    server.setDefault((recorded) => ({ text: `echo ${recorded.body.messages.at(-1).content}` }));
    const completion = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'ping' }] });
    expect(completion.choices[0]?.message.content).toBe('echo ping');
  });

  it('streams the real Anthropic event sequence', async () => {
    server.enqueue({ thinking: { text: 'hmm', signature: 'sig' }, text: 'hi', usage: { cacheRead: 7, cacheWrite: 2 } });
    const stream = await anthropic.messages.create({ model: 'm', max_tokens: 10, messages: [{ role: 'user', content: 'x' }], stream: true });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type === 'content_block_delta' ? `delta:${event.delta.type}` : event.type);
    expect(types).toEqual([
      'message_start',
      'content_block_start',
      'delta:thinking_delta',
      'delta:signature_delta',
      'content_block_stop',
      'content_block_start',
      'delta:text_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
  });

  it('records headers, raw body and path, and refuses requests without a key', async () => {
    await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    const [recorded] = server.requests;
    expect(recorded?.path).toBe('/v1/chat/completions');
    expect(recorded?.headers.authorization).toBe('Bearer test-key');
    expect(JSON.parse(recorded?.rawBody ?? '')).toEqual(recorded?.body);

    const response = await fetch(`${server.url}/v1/messages`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });

  it('stalls after some events, sending each protocol\'s keep-alive while it waits when asked to', async () => {
    const raw = async (path: string, body: Record<string, unknown>) => {
      const response = await fetch(`${server.url}${path}`, { method: 'POST', headers: { 'x-api-key': 'k' }, body: JSON.stringify({ model: 'm', stream: true, ...body }) });
      return response.text();
    };
    server.enqueue({ text: 'abc', stallAfterEvents: { events: 1, ms: 120 }, keepAliveEveryMs: 50 }, { text: 'abc', stallAfterEvents: { events: 1, ms: 120 }, keepAliveEveryMs: 50 });
    const anthropicText = await raw('/v1/messages', { max_tokens: 5, messages: [] });
    // message_start, two pings while stalled (at 50 and 100 ms), then the rest with its own ping.
    expect(anthropicText.split('\n\n')[0]).toContain('event: message_start');
    expect(anthropicText.split('\n\n').slice(1, 3)).toEqual(['event: ping\ndata: {"type":"ping"}', 'event: ping\ndata: {"type":"ping"}']);
    expect(anthropicText).toContain('event: message_stop');
    const openaiText = await raw('/v1/chat/completions', { messages: [] });
    expect(openaiText.split('\n\n').slice(1, 3)).toEqual([': keep-alive', ': keep-alive']);
    expect(openaiText.trimEnd().endsWith('data: [DONE]')).toBe(true);
    // The SDKs drop keep-alives: the stream reads as if nothing had been sent meanwhile.
    server.enqueue({ text: 'kept alive', stallAfterHeadersMs: 120, keepAliveEveryMs: 50 });
    const stream = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
    expect(text).toBe('kept alive');
  });

  it('clears queue, requests and default on reset', async () => {
    server.enqueue({ text: 'queued' });
    server.setDefault({ text: 'custom' });
    await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    server.enqueue({ text: 'left over' });
    server.reset();
    expect(server.pending()).toBe(0);
    expect(server.requests).toHaveLength(0);
    const completion = await openai.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(completion.choices[0]?.message.content).toBe('ok');
  });
});

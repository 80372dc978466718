import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.ts';
import { createOpenAIProvider } from '../../src/llm/providers/openai.ts';
import type { Message, Provider, ToolDefinition } from '../../src/llm/types.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { argumentDeltas, collect, finalError, finalMessage, request, run, secretKey, userText } from './helpers.ts';

let server: FakeModelServer;
let provider: Provider;

beforeAll(async () => {
  server = await startFakeModelServer();
  provider = createOpenAIProvider({ apiKey: secretKey, baseURL: server.openaiBaseURL });
});
afterAll(() => server.close());
beforeEach(() => server.reset());
afterEach(() => vi.unstubAllEnvs());

const tools: ToolDefinition[] = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'shell', description: 'Run a command', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
];

describe('OpenAI provider: streaming', () => {
  it('streams text deltas and ends with the assembled message', async () => {
    server.enqueue({ text: 'Hello from the chat completions stream.', chunkSize: 5 });
    const events = await run(provider, request('gpt-5.2'));
    expect(events[0]).toEqual({ type: 'message-start', model: 'gpt-5.2' });
    const deltas = events.filter((event) => event.type === 'text-delta').map((event) => event.text);
    expect(deltas.length).toBeGreaterThan(1);
    const message = finalMessage(events);
    expect(message.content).toEqual([{ type: 'text', text: 'Hello from the chat completions stream.' }]);
    expect(message.stopReason).toBe('stop');
    expect(message.provider).toBe('openai');
  });

  it('sends the request in Chat Completions shape', async () => {
    await run(provider, request('gpt-5.2', [userText('hi')], { tools, maxTokens: 700 }));
    const [recorded] = server.requests;
    expect(recorded?.path).toBe('/v1/chat/completions');
    expect(recorded?.headers.authorization).toBe(`Bearer ${secretKey}`);
    expect(recorded?.body).toMatchObject({
      model: 'gpt-5.2',
      stream: true,
      stream_options: { include_usage: true },
      max_completion_tokens: 700,
      messages: [
        { role: 'system', content: 'You are a test.' },
        { role: 'user', content: 'hi' },
      ],
      tools: [
        { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: tools[0]?.parameters } },
        { type: 'function', function: { name: 'shell', description: 'Run a command', parameters: tools[1]?.parameters } },
      ],
    });
  });

  it('assembles two parallel tool calls from chunks by index', async () => {
    server.enqueue({
      toolCalls: [
        { id: 'call_1', name: 'read_file', arguments: { path: '/etc/hosts', note: 'a fairly long argument value' } },
        { id: 'call_2', name: 'shell', arguments: { command: 'ls -la /tmp' } },
      ],
      chunkSize: 5,
    });
    const events = await run(provider, request('gpt-5.2', [userText('go')], { tools }));
    expect(events.filter((event) => event.type === 'tool-call-start')).toEqual([
      { type: 'tool-call-start', id: 'call_1', name: 'read_file' },
      { type: 'tool-call-start', id: 'call_2', name: 'shell' },
    ]);
    const deltas = argumentDeltas(events);
    expect(deltas.get('call_2')?.length).toBeGreaterThan(1);
    expect(deltas.get('call_2')?.join('')).toBe('{"command":"ls -la /tmp"}');
    const message = finalMessage(events);
    expect(message.stopReason).toBe('tool-calls');
    expect(message.content).toEqual([
      { type: 'tool-call', id: 'call_1', name: 'read_file', arguments: { path: '/etc/hosts', note: 'a fairly long argument value' } },
      { type: 'tool-call', id: 'call_2', name: 'shell', arguments: { command: 'ls -la /tmp' } },
    ]);
    expect(events.filter((event) => event.type === 'tool-call-end')).toHaveLength(2);
  });

  it('reports usage with cached prompt tokens split from fresh input', async () => {
    server.enqueue({ text: 'cached', usage: { input: 150, output: 40, cacheRead: 2048 } });
    const message = finalMessage(await run(provider, request('gpt-5.2')));
    // The fake reports prompt_tokens = input + cached, as OpenAI does.
    expect(message.usage).toEqual({ input: 150, output: 40, cacheRead: 2048, cacheWrite: 0 });
  });

  it.each([
    ['stop', 'stop'],
    ['length', 'length'],
    ['content_filter', 'content-filter'],
    ['tool_calls', 'tool-calls'],
  ])('maps finish reason %s to %s', async (native, mapped) => {
    server.enqueue({ text: 'x', stopReason: native });
    expect(finalMessage(await run(provider, request('gpt-5.2'))).stopReason).toBe(mapped);
  });

  it('keeps streaming through a slow stream', async () => {
    server.enqueue({ text: 'slow but steady', chunkSize: 3, delayMs: 15 });
    const message = finalMessage(await run(provider, request('gpt-5.2')));
    expect(message.content).toEqual([{ type: 'text', text: 'slow but steady' }]);
  });

  it('reports tool-calls when a compatible server finishes tool calls with stop', async () => {
    server.enqueue({ toolCalls: [{ id: 'call_x', name: 'shell', arguments: {} }], stopReason: 'stop' });
    const message = finalMessage(await run(provider, request('local-model', [userText('go')], { tools })));
    expect(message.stopReason).toBe('tool-calls');
    expect(message.content).toEqual([{ type: 'tool-call', id: 'call_x', name: 'shell', arguments: {} }]);
  });

  it('turns reasoning_content of compatible servers into thinking', async () => {
    server.enqueue({ thinking: { text: 'pondering quietly', signature: 'unused' }, text: 'done' });
    const events = await run(provider, request('local-model'));
    expect(events.filter((event) => event.type === 'thinking-delta').map((event) => event.text).join('')).toBe('pondering quietly');
    expect(finalMessage(events).content).toEqual([
      { type: 'thinking', text: 'pondering quietly' },
      { type: 'text', text: 'done' },
    ]);
  });
});

describe('OpenAI provider: request conversion', () => {
  it('sends tool results as tool messages and their images in a following user message', async () => {
    const conversation: Message[] = [
      userText('look'),
      {
        role: 'assistant',
        content: [
          { type: 'thinking', text: 'dropped', signature: 'sig' },
          { type: 'text', text: 'Looking.' },
          { type: 'tool-call', id: 'call_a', name: 'read_file', arguments: { path: 'a.txt' } },
          { type: 'tool-call', id: 'call_b', name: 'read_file', arguments: { path: 'b.png' } },
        ],
      },
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'call_a', toolName: 'read_file', content: [{ type: 'text', text: 'ENOENT' }], isError: true }] },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'call_b',
            toolName: 'read_file',
            content: [{ type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' }],
            isError: false,
          },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'and?' }, { type: 'image', url: 'https://example.com/c.jpg', mediaType: 'image/jpeg' }] },
    ];
    await run(provider, request('gpt-5.2', conversation, { tools }));
    expect(server.requests[0]?.body.messages).toEqual([
      { role: 'system', content: 'You are a test.' },
      { role: 'user', content: 'look' },
      {
        role: 'assistant',
        content: 'Looking.',
        tool_calls: [
          { id: 'call_a', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.txt"}' } },
          { id: 'call_b', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.png"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_a', content: 'Error: ENOENT' },
      { role: 'tool', tool_call_id: 'call_b', content: '(image attached below)' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Image(s) returned by tool read_file (call call_b):' },
          { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'and?' },
          { type: 'image_url', image_url: { url: 'https://example.com/c.jpg' } },
        ],
      },
    ]);
  });

  it('passes reasoning_effort to reasoning models and unknown models, not to gpt-4.1', async () => {
    await run(provider, request('o3', undefined, { reasoningEffort: 'high', temperature: 0.2 }));
    await run(provider, request('my-local-model', undefined, { reasoningEffort: 'low', temperature: 0.2 }));
    await run(provider, request('gpt-4.1', undefined, { reasoningEffort: 'low', temperature: 0.2 }));
    await run(provider, request('gpt-5.2'));
    const bodies = server.requests.map((recorded) => recorded.body);
    expect(bodies[0]).toMatchObject({ reasoning_effort: 'high' });
    expect(bodies[0].temperature).toBeUndefined();
    expect(bodies[1]).toMatchObject({ reasoning_effort: 'low', temperature: 0.2 });
    expect(bodies[2].reasoning_effort).toBeUndefined();
    expect(bodies[2].temperature).toBe(0.2);
    expect(bodies[3].reasoning_effort).toBeUndefined();
    expect(bodies[3].max_completion_tokens).toBeUndefined();
  });

  it('sends byte-identical bodies for identical requests', async () => {
    const messages = [userText('same'), { role: 'assistant', content: [{ type: 'text', text: 'again' }] } as Message, userText('same')];
    await run(provider, request('gpt-5.2', messages, { tools }));
    await run(provider, request('gpt-5.2', structuredClone(messages), { tools: structuredClone(tools) }));
    expect(server.requests[1]?.rawBody).toBe(server.requests[0]?.rawBody);
  });
});

describe('OpenAI provider: configuration', () => {
  it('uses a placeholder key for a local server that needs none', async () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    const local = createOpenAIProvider({ baseURL: server.openaiBaseURL });
    const message = finalMessage(await run(local, request('llama3.1:8b')));
    expect(message.content).toEqual([{ type: 'text', text: 'ok' }]);
    expect(server.requests[0]?.headers.authorization).toMatch(/^Bearer \S+/);
  });

  it('throws ConfigurationError without key and base URL', () => {
    vi.stubEnv('OPENAI_API_KEY', '');
    vi.stubEnv('OPENAI_BASE_URL', '');
    expect(() => createOpenAIProvider()).toThrow(ConfigurationError);
  });
});

describe('OpenAI provider: failures and abort', () => {
  it('reports a mid-stream disconnect as an error event with the partial message', async () => {
    server.enqueue({ text: 'This answer is cut off in the middle', chunkSize: 4, disconnectAfterEvents: 4 });
    const events = await run(provider, request('gpt-5.2'));
    const { error, partial } = finalError(events);
    expect(error.kind).toBe('UNKNOWN');
    const streamed = events.filter((event) => event.type === 'text-delta').map((event) => event.text).join('');
    expect(streamed).toBe('This answer ');
    expect(partial?.content).toEqual([{ type: 'text', text: streamed }]);
  });

  it('ends with message-end "aborted" and the partial content when the signal aborts', async () => {
    // No delay: the rest of the stream may already be buffered, and must still be ignored.
    server.enqueue({ text: 'abcdefghijklmnopqrstuvwxyz', chunkSize: 4 });
    const controller = new AbortController();
    const events = [];
    for await (const event of provider.stream(request('gpt-5.2', undefined, { signal: controller.signal }))) {
      events.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    expect(events.some((event) => event.type === 'error')).toBe(false);
    const message = finalMessage(events);
    expect(message.stopReason).toBe('aborted');
    expect(message.content).toEqual([{ type: 'text', text: 'abcd' }]);
  });

  it('ends with message-end "aborted" when the signal aborts while the caller is busy', async () => {
    // The abort lands between two reads, after the server sent everything in separate packets:
    // the SDK alone would then wait forever on the next read.
    server.enqueue({ text: 'abcdefghijklmnopqrstuvwxyz', chunkSize: 2, delayMs: 1 });
    const controller = new AbortController();
    const events = [];
    for await (const event of provider.stream(request('gpt-5.2', undefined, { signal: controller.signal }))) {
      events.push(event);
      if (event.type === 'text-delta' && !controller.signal.aborted) {
        setTimeout(() => controller.abort(), 150);
        await new Promise((resolve) => setTimeout(resolve, 300));
      }
    }
    const message = finalMessage(events);
    expect(message.stopReason).toBe('aborted');
    expect(message.content).toEqual([{ type: 'text', text: 'ab' }]);
  });

  it('ends with message-end "aborted" when the signal was aborted before the call', async () => {
    const events = await collect(provider.stream(request('gpt-5.2', undefined, { signal: AbortSignal.abort() })));
    expect(events).toHaveLength(1);
    expect(finalMessage(events)).toMatchObject({ stopReason: 'aborted', content: [] });
  });

  it('reports a stream that falls silent after the headers as TIMEOUT', async () => {
    const impatient = createOpenAIProvider({ apiKey: secretKey, baseURL: server.openaiBaseURL, timeouts: { firstByteMs: 300, idleMs: 300 } });
    server.enqueue({ text: 'stalls', delayMs: 60_000 });
    const { error } = finalError(await run(impatient, request('gpt-5.2')));
    expect(error.kind).toBe('TIMEOUT');
  });

  it('reports a stream that sends its headers and then nothing as TIMEOUT (no first byte), retryable', async () => {
    const impatient = createOpenAIProvider({ apiKey: secretKey, baseURL: server.openaiBaseURL, timeouts: { firstByteMs: 200, idleMs: 5_000 } });
    server.enqueue({ text: 'never starts', stallAfterHeadersMs: 60_000 });
    const { error } = finalError(await run(impatient, request('gpt-5.2')));
    expect(error.kind).toBe('TIMEOUT');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('no first byte within 200 ms');
  });

  it('reports a response timeout as TIMEOUT', async () => {
    const impatient = createOpenAIProvider({ apiKey: secretKey, baseURL: server.openaiBaseURL, timeouts: { firstByteMs: 100, idleMs: 100 } });
    server.enqueue({ text: 'late', hangMs: 60_000 });
    const { error } = finalError(await run(impatient, request('gpt-5.2')));
    expect(error.kind).toBe('TIMEOUT');
  });
});

import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../src/llm/providers/anthropic.ts';
import type { AssistantMessage, Message, Provider, ToolDefinition } from '../../src/llm/types.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { argumentDeltas, collect, finalError, finalMessage, request, run, secretKey, userText } from './helpers.ts';

let server: FakeModelServer;
let provider: Provider;

beforeAll(async () => {
  server = await startFakeModelServer();
  provider = createAnthropicProvider({ apiKey: secretKey, baseURL: server.anthropicBaseURL });
});
afterAll(() => server.close());
beforeEach(() => server.reset());

const tools: ToolDefinition[] = [
  { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
  { name: 'shell', description: 'Run a command', parameters: { type: 'object', properties: { command: { type: 'string' } } } },
];

describe('Anthropic provider: streaming', () => {
  it('streams text deltas and ends with the assembled message', async () => {
    server.enqueue({ text: 'Hello there, this is a streamed answer.', chunkSize: 5 });
    const events = await run(provider, request('claude-sonnet-4-6'));

    expect(events[0]).toEqual({ type: 'message-start', model: 'claude-sonnet-4-6' });
    const deltas = events.filter((event) => event.type === 'text-delta').map((event) => event.text);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toBe('Hello there, this is a streamed answer.');
    const message = finalMessage(events);
    expect(message.content).toEqual([{ type: 'text', text: 'Hello there, this is a streamed answer.' }]);
    expect(message.stopReason).toBe('stop');
    expect(message.provider).toBe('anthropic');
    expect(message.model).toBe('claude-sonnet-4-6');
  });

  it('sends the key, the model and stream: true through the real SDK', async () => {
    await run(provider, request('claude-sonnet-4-6'));
    const [recorded] = server.requests;
    expect(recorded?.path).toBe('/v1/messages');
    expect(recorded?.headers['x-api-key'] ?? recorded?.headers.authorization).toContain(secretKey);
    expect(recorded?.body).toMatchObject({ model: 'claude-sonnet-4-6', stream: true });
  });

  it('assembles two parallel tool calls whose arguments arrive split', async () => {
    server.enqueue({
      text: 'Let me look.',
      toolCalls: [
        { id: 'toolu_1', name: 'read_file', arguments: { path: '/etc/hosts', note: 'a fairly long argument value' } },
        { id: 'toolu_2', name: 'shell', arguments: { command: 'ls -la /tmp' } },
      ],
      chunkSize: 6,
    });
    const events = await run(provider, request('claude-sonnet-4-6', [userText('look')], { tools }));

    const starts = events.filter((event) => event.type === 'tool-call-start');
    expect(starts).toEqual([
      { type: 'tool-call-start', id: 'toolu_1', name: 'read_file' },
      { type: 'tool-call-start', id: 'toolu_2', name: 'shell' },
    ]);
    const deltas = argumentDeltas(events);
    expect(deltas.get('toolu_1')?.length).toBeGreaterThan(1);
    expect(deltas.get('toolu_1')?.join('')).toBe(JSON.stringify({ path: '/etc/hosts', note: 'a fairly long argument value' }));
    const ends = events.filter((event) => event.type === 'tool-call-end').map((event) => event.call);
    expect(ends).toEqual([
      { type: 'tool-call', id: 'toolu_1', name: 'read_file', arguments: { path: '/etc/hosts', note: 'a fairly long argument value' } },
      { type: 'tool-call', id: 'toolu_2', name: 'shell', arguments: { command: 'ls -la /tmp' } },
    ]);
    const message = finalMessage(events);
    expect(message.stopReason).toBe('tool-calls');
    expect(message.content.map((part) => part.type)).toEqual(['text', 'tool-call', 'tool-call']);
  });

  it('reports usage with cache reads and writes', async () => {
    server.enqueue({ text: 'cached', usage: { input: 120, output: 33, cacheRead: 4000, cacheWrite: 512 } });
    const message = finalMessage(await run(provider, request('claude-sonnet-4-6')));
    expect(message.usage).toEqual({ input: 120, output: 33, cacheRead: 4000, cacheWrite: 512 });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['max_tokens', 'length'],
    ['refusal', 'content-filter'],
    ['pause_turn', 'other'],
  ])('maps stop reason %s to %s', async (native, mapped) => {
    server.enqueue({ text: 'x', stopReason: native });
    expect(finalMessage(await run(provider, request('claude-sonnet-4-6'))).stopReason).toBe(mapped);
  });

  it('keeps streaming through a slow stream', async () => {
    server.enqueue({ text: 'slow but steady', chunkSize: 3, delayMs: 15 });
    const message = finalMessage(await run(provider, request('claude-sonnet-4-6')));
    expect(message.content).toEqual([{ type: 'text', text: 'slow but steady' }]);
  });
});

describe('Anthropic provider: thinking', () => {
  it('streams thinking and sends the signature back byte-identical', async () => {
    const signature = 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDHf+/aPc=\\u00e9"quoted"/slash';
    server.enqueue({ thinking: { text: 'Let me think about this.', signature }, toolCalls: [{ id: 'toolu_9', name: 'shell', arguments: { command: 'date' } }] });
    const first = await run(provider, request('claude-sonnet-4-6', [userText('time?')], { tools, reasoningEffort: 'low' }));
    expect(first.filter((event) => event.type === 'thinking-delta').map((event) => event.text).join('')).toBe('Let me think about this.');
    const assistant = finalMessage(first);
    expect(assistant.content[0]).toEqual({ type: 'thinking', text: 'Let me think about this.', signature });

    server.enqueue({ text: 'It is noon.' });
    const conversation: Message[] = [
      userText('time?'),
      assistant,
      { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_9', toolName: 'shell', content: [{ type: 'text', text: '12:00' }], isError: false }] },
    ];
    await run(provider, request('claude-sonnet-4-6', conversation, { tools, reasoningEffort: 'low' }));
    const second = server.requests[1];
    expect(second?.body.messages[1].content[0]).toEqual({ type: 'thinking', thinking: 'Let me think about this.', signature });
    expect(second?.rawBody).toContain(JSON.stringify({ type: 'thinking', thinking: 'Let me think about this.', signature }));
  });

  it('sends redacted thinking back as redacted_thinking and drops unsigned thinking', async () => {
    const assistant: AssistantMessage = {
      role: 'assistant',
      content: [
        { type: 'thinking', text: '', redacted: 'ENCRYPTED==' },
        { type: 'thinking', text: 'unsigned, from another provider' },
        { type: 'text', text: 'Answer.' },
      ],
    };
    await run(provider, request('claude-sonnet-4-6', [userText('q'), assistant, userText('more')]));
    expect(server.requests[0]?.body.messages[1].content).toEqual([
      { type: 'redacted_thinking', data: 'ENCRYPTED==' },
      { type: 'text', text: 'Answer.' },
    ]);
  });

  it.each([
    ['low', 2048],
    ['medium', 8192],
    ['high', 24576],
  ] as const)('maps reasoning effort %s to a thinking budget of %i tokens', async (effort, budget) => {
    await run(provider, request('claude-sonnet-4-6', undefined, { reasoningEffort: effort }));
    const body = server.requests[0]?.body;
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: budget });
    expect(body.max_tokens).toBeGreaterThan(budget);
  });

  it('raises max_tokens above the thinking budget', async () => {
    await run(provider, request('claude-sonnet-4-6', undefined, { reasoningEffort: 'high', maxTokens: 1000 }));
    expect(server.requests[0]?.body.max_tokens).toBe(24576 + 1000);
  });

  it('enables thinking for unknown models but not without an effort', async () => {
    await run(provider, request('claude-future-9', undefined, { reasoningEffort: 'medium' }));
    await run(provider, request('claude-sonnet-4-6'));
    expect(server.requests[0]?.body.thinking).toEqual({ type: 'enabled', budget_tokens: 8192 });
    expect(server.requests[1]?.body.thinking).toBeUndefined();
  });

  it('defaults max_tokens to the catalog limit capped at 32000, else 8192', async () => {
    await run(provider, request('claude-opus-4-6'));
    await run(provider, request('claude-unknown-1'));
    await run(provider, request('claude-sonnet-4-6', undefined, { maxTokens: 500 }));
    expect(server.requests.map((recorded) => recorded.body.max_tokens)).toEqual([32000, 8192, 500]);
  });
});

describe('Anthropic provider: request conversion', () => {
  const conversation: Message[] = [
    userText('Read two files.'),
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Reading.' },
        { type: 'tool-call', id: 'toolu_a', name: 'read_file', arguments: { path: 'a.txt' } },
        { type: 'tool-call', id: 'toolu_b', name: 'read_file', arguments: { path: 'b.png' } },
      ],
    },
    { role: 'tool', content: [{ type: 'tool-result', toolCallId: 'toolu_a', toolName: 'read_file', content: [{ type: 'text', text: 'ENOENT' }], isError: true }] },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: 'toolu_b',
          toolName: 'read_file',
          content: [
            { type: 'text', text: 'an image' },
            { type: 'image', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
          ],
          isError: false,
        },
      ],
    },
    { role: 'user', content: [{ type: 'text', text: 'And this one?' }, { type: 'image', url: 'https://example.com/c.jpg', mediaType: 'image/jpeg' }] },
  ];

  it('merges consecutive tool results and the next user turn into one user message', async () => {
    await run(provider, request('claude-sonnet-4-6', conversation, { tools }));
    const messages = server.requests[0]?.body.messages;
    expect(messages.map((message: { role: string }) => message.role)).toEqual(['user', 'assistant', 'user']);
    expect(messages[1].content).toEqual([
      { type: 'text', text: 'Reading.' },
      { type: 'tool_use', id: 'toolu_a', name: 'read_file', input: { path: 'a.txt' } },
      { type: 'tool_use', id: 'toolu_b', name: 'read_file', input: { path: 'b.png' } },
    ]);
    expect(messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'toolu_a', content: [{ type: 'text', text: 'ENOENT' }], is_error: true },
      {
        type: 'tool_result',
        tool_use_id: 'toolu_b',
        content: [
          { type: 'text', text: 'an image' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
        ],
      },
      { type: 'text', text: 'And this one?' },
      { type: 'image', source: { type: 'url', url: 'https://example.com/c.jpg' }, cache_control: { type: 'ephemeral' } },
    ]);
  });

  it('merges consecutive same-role messages and drops empty ones', async () => {
    const messages: Message[] = [userText('one'), userText('two'), { role: 'assistant', content: [] }, userText('three')];
    await run(provider, request('claude-sonnet-4-6', messages));
    expect(server.requests[0]?.body.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'one' },
          { type: 'text', text: 'two' },
          { type: 'text', text: 'three', cache_control: { type: 'ephemeral' } },
        ],
      },
    ]);
  });

  it('places cache breakpoints on the system prompt, the last tool and the last message block only', async () => {
    await run(provider, request('claude-sonnet-4-6', conversation, { tools }));
    const [recorded] = server.requests;
    const body = recorded?.body;
    expect(body.system).toEqual([{ type: 'text', text: 'You are a test.', cache_control: { type: 'ephemeral' } }]);
    expect(body.tools[0]).toEqual({ name: 'read_file', description: 'Read a file', input_schema: tools[0]?.parameters });
    expect(body.tools[1]).toEqual({ name: 'shell', description: 'Run a command', input_schema: tools[1]?.parameters, cache_control: { type: 'ephemeral' } });
    expect(body.messages.at(-1).content.at(-1).cache_control).toEqual({ type: 'ephemeral' });
    expect(recorded?.rawBody.match(/"cache_control"/g)).toHaveLength(3);
  });

  it('sends byte-identical bodies for identical requests (prompt-cache stability)', async () => {
    await run(provider, request('claude-sonnet-4-6', conversation, { tools, reasoningEffort: 'medium' }));
    await run(provider, request('claude-sonnet-4-6', structuredClone(conversation), { tools: structuredClone(tools), reasoningEffort: 'medium' }));
    const [first, second] = server.requests;
    expect(first?.rawBody.length).toBeGreaterThan(100);
    expect(second?.rawBody).toBe(first?.rawBody);
  });

  it('does not mutate the conversation it converts', async () => {
    const copy = structuredClone(conversation);
    await run(provider, request('claude-sonnet-4-6', conversation, { tools }));
    expect(conversation).toEqual(copy);
  });
});

describe('Anthropic provider: failures and abort', () => {
  it('reports a mid-stream disconnect as an error event with the partial message', async () => {
    server.enqueue({ text: 'This answer is cut off in the middle', chunkSize: 4, disconnectAfterEvents: 6 });
    const events = await run(provider, request('claude-sonnet-4-6'));
    const { error, partial } = finalError(events);
    expect(error.kind).toBe('UNKNOWN');
    expect(error.retryable).toBe(true);
    const streamed = events.filter((event) => event.type === 'text-delta').map((event) => event.text).join('');
    expect(streamed.length).toBeGreaterThan(0);
    expect(partial?.content).toEqual([{ type: 'text', text: streamed }]);
    expect(partial?.stopReason).toBe('error');
    expect(events.filter((event) => event.type === 'message-end')).toHaveLength(0);
  });

  it('ends with message-end "aborted" and the partial content when the signal aborts', async () => {
    // No delay: the rest of the stream may already be buffered, and must still be ignored.
    server.enqueue({ text: 'abcdefghijklmnopqrstuvwxyz', chunkSize: 4 });
    const controller = new AbortController();
    const events = [];
    for await (const event of provider.stream(request('claude-sonnet-4-6', undefined, { signal: controller.signal }))) {
      events.push(event);
      if (event.type === 'text-delta') controller.abort();
    }
    expect(events.filter((event) => event.type === 'text-delta')).toHaveLength(1);
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
    for await (const event of provider.stream(request('claude-sonnet-4-6', undefined, { signal: controller.signal }))) {
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

  it('ends with message-end "aborted" when aborted before the response arrives', async () => {
    server.enqueue({ text: 'never', hangMs: 60_000 });
    const controller = new AbortController();
    const stream = provider.stream(request('claude-sonnet-4-6', undefined, { signal: controller.signal }));
    const pending = collect(stream);
    while (server.requests.length === 0) await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    const events = await pending;
    expect(events).toHaveLength(1);
    expect(finalMessage(events)).toMatchObject({ stopReason: 'aborted', content: [] });
  });

  it('reports a stream that falls silent after the headers as TIMEOUT', async () => {
    const impatient = createAnthropicProvider({ apiKey: secretKey, baseURL: server.anthropicBaseURL, timeouts: { firstByteMs: 300, idleMs: 300 } });
    server.enqueue({ text: 'stalls', delayMs: 60_000 });
    const events = await run(impatient, request('claude-sonnet-4-6'));
    expect(events[0]?.type).toBe('message-start');
    const { error, partial } = finalError(events);
    expect(error.kind).toBe('TIMEOUT');
    expect(error.message).toContain('no data for 300 ms');
    expect(partial?.stopReason).toBe('error');
  });

  it('does not count a slow consumer as server silence', async () => {
    const impatient = createAnthropicProvider({ apiKey: secretKey, baseURL: server.anthropicBaseURL, timeouts: { firstByteMs: 1000, idleMs: 1000 } });
    server.enqueue({ text: 'quick answer, slow reader', chunkSize: 5, delayMs: 50 });
    const events = [];
    for await (const event of impatient.stream(request('claude-sonnet-4-6'))) {
      events.push(event);
      if (event.type === 'text-delta' && events.length < 3) await new Promise((resolve) => setTimeout(resolve, 1500));
    }
    expect(finalMessage(events).content).toEqual([{ type: 'text', text: 'quick answer, slow reader' }]);
  });

  it('reports a stream that sends its headers and then nothing as TIMEOUT (no first byte), retryable', async () => {
    const impatient = createAnthropicProvider({ apiKey: secretKey, baseURL: server.anthropicBaseURL, timeouts: { firstByteMs: 200, idleMs: 5_000 } });
    server.enqueue({ text: 'never starts', stallAfterHeadersMs: 60_000 });
    const { error } = finalError(await run(impatient, request('claude-sonnet-4-6')));
    expect(error.kind).toBe('TIMEOUT');
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('no first byte within 200 ms');
  });

  it('reports a response timeout as TIMEOUT', async () => {
    const impatient = createAnthropicProvider({ apiKey: secretKey, baseURL: server.anthropicBaseURL, timeouts: { firstByteMs: 100, idleMs: 100 } });
    server.enqueue({ text: 'late', hangMs: 60_000 });
    const { error } = finalError(await run(impatient, request('claude-sonnet-4-6')));
    expect(error.kind).toBe('TIMEOUT');
    expect(error.retryable).toBe(true);
  });
});

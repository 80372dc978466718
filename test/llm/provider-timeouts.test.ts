/**
 * A model provider that hangs, driven through both real SDKs against the fake model server: no
 * response headers, headers and then nothing, events and then silence each fail as a retryable
 * `TIMEOUT` naming the limit; a slow but steady stream, keep-alives the SDKs drop, and a slow
 * reader do not. The limits are short here; the fake's stalls are long, so a stream that is not
 * cut off would hang the test until its own safety time-out.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { keepAliveFetch, loadKeepAliveFetch } from '../../src/core/keep-alive-fetch.ts';
import { createAnthropicProvider } from '../../src/llm/providers/anthropic.ts';
import { IdleWatch, timeoutsFromEnv, type StreamTimeouts } from '../../src/llm/providers/idle-watch.ts';
import { createOpenAIProvider } from '../../src/llm/providers/openai.ts';
import { watchedFetch, watchedRequest } from '../../src/llm/providers/watched-fetch.ts';
import type { Provider, StreamEvent } from '../../src/llm/types.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { finalError, finalMessage, request, run, secretKey } from './helpers.ts';

let server: FakeModelServer;

beforeAll(async () => {
  server = await startFakeModelServer();
  // The transport the gateway runs on (node-fetch); before it loads, Node's own fetch is used.
  await loadKeepAliveFetch();
});
afterAll(() => server.close());
beforeEach(() => server.reset());

/** Far longer than any limit below: a stall the watch must cut short. */
const forever = 60_000;
const longText = 'A slow but steady answer, one small piece at a time.';

const sdks: { name: string; model: string; make: (timeouts: Partial<StreamTimeouts>) => Provider }[] = [
  {
    name: 'Anthropic',
    model: 'claude-sonnet-4-6',
    make: (timeouts) => createAnthropicProvider({ apiKey: secretKey, baseURL: server.anthropicBaseURL, timeouts }),
  },
  { name: 'OpenAI', model: 'gpt-5.2', make: (timeouts) => createOpenAIProvider({ apiKey: secretKey, baseURL: server.openaiBaseURL, timeouts }) },
];

const texts = (events: StreamEvent[]) => events.flatMap((event) => (event.type === 'text-delta' ? [event.text] : []));

// Each test below sets the fake's default reply rather than queueing one: a request an earlier
// test gave up on before the server read it (on a busy machine) is answered late, and would take
// a queued reply meant for the next test.

describe.each(sdks)('$name provider: a model call that hangs', ({ model, make }) => {
  it('fails as a retryable TIMEOUT naming the first-byte limit when no response headers come', async () => {
    server.setDefault({ text: 'never sent', hangMs: forever });
    const events = await run(make({ firstByteMs: 300, idleMs: 5_000 }), request(model));
    const { error, partial } = finalError(events);
    expect(error).toMatchObject({ kind: 'TIMEOUT', retryable: true });
    expect(error.message).toContain('no first byte within 300 ms');
    expect(partial?.content).toEqual([]);
    expect(events.some((event) => event.type === 'message-start')).toBe(false);
  });

  it('fails the same way when the headers come and then no event', async () => {
    server.setDefault({ text: 'never sent', stallAfterHeadersMs: forever });
    const { error } = finalError(await run(make({ firstByteMs: 300, idleMs: 5_000 }), request(model)));
    expect(error).toMatchObject({ kind: 'TIMEOUT', retryable: true });
    expect(error.message).toContain('no first byte within 300 ms');
  });

  it('fails as a retryable TIMEOUT naming the idle limit when events come and then silence', async () => {
    // Three events: the start, and a piece of text (OpenAI) or Anthropic's ping and block start.
    server.setDefault({ text: 'first piece, then nothing', chunkSize: 12, stallAfterEvents: { events: 3, ms: forever } });
    const events = await run(make({ firstByteMs: 5_000, idleMs: 300 }), request(model));
    expect(events[0]?.type).toBe('message-start');
    const { error, partial } = finalError(events);
    expect(error).toMatchObject({ kind: 'TIMEOUT', retryable: true });
    expect(error.message).toContain('no data for 300 ms');
    expect(partial?.stopReason).toBe('error');
    expect(texts(events).join('')).not.toBe('first piece, then nothing');
  });

  it('cuts a stall after the first byte at the idle limit, not at the longer first-byte one', async () => {
    server.setDefault({ text: 'first piece, then nothing', chunkSize: 12, stallAfterEvents: { events: 3, ms: forever } });
    // The first-byte limit is as long as the stall: a watch that waited for it would hang the test.
    const { error } = finalError(await run(make({ firstByteMs: forever, idleMs: 300 }), request(model)));
    expect(error).toMatchObject({ kind: 'TIMEOUT', retryable: true });
    expect(error.message).toContain('no data for 300 ms');
  });

  it('lets a slow but steady stream finish although it takes longer than the idle limit in all', async () => {
    // Pauses of a tenth of the limit: one stretched on a busy machine still stays within it.
    server.setDefault({ text: longText, chunkSize: 4, delayMs: 100 });
    const events = await run(make({ firstByteMs: 1_000, idleMs: 1_000 }), request(model));
    // More than ten pauses of 100 ms each: the whole answer took longer than the idle limit.
    expect(texts(events).length).toBeGreaterThan(10);
    expect(finalMessage(events).content).toEqual([{ type: 'text', text: longText }]);
  });

  it('counts the keep-alives the SDK drops as life, before the first event and between events', async () => {
    // Silences more than twice the limits, each broken by a keep-alive every 100 ms.
    server.setDefault({ text: 'thought long, said it', stallAfterHeadersMs: 1_200, stallAfterEvents: { events: 2, ms: 1_200 }, keepAliveEveryMs: 100 });
    const events = await run(make({ firstByteMs: 500, idleMs: 500 }), request(model));
    expect(finalMessage(events).content).toEqual([{ type: 'text', text: 'thought long, said it' }]);
  });

  it('gives the first byte its own limit, longer than the idle one', async () => {
    // Silent for more than twice the idle limit before the first byte.
    server.setDefault({ text: 'late start, then quick', stallAfterHeadersMs: 500 });
    const events = await run(make({ firstByteMs: 5_000, idleMs: 200 }), request(model));
    expect(finalMessage(events).content).toEqual([{ type: 'text', text: 'late start, then quick' }]);
  });

  it('does not count a slow reader as silence', async () => {
    server.setDefault({ text: 'quick answer, slow reader', chunkSize: 5 });
    const events: StreamEvent[] = [];
    for await (const event of make({ firstByteMs: 300, idleMs: 300 }).stream(request(model))) {
      events.push(event);
      // Each of the first pieces is handled for longer than the idle limit.
      if (event.type === 'text-delta' && texts(events).length < 3) await new Promise((resolve) => setTimeout(resolve, 500));
    }
    expect(finalMessage(events).content).toEqual([{ type: 'text', text: 'quick answer, slow reader' }]);
  });
});

describe('watchedFetch', () => {
  for (const [transport, base] of [
    ["Node's own fetch", globalThis.fetch],
    ['the keep-alive transport (node-fetch)', keepAliveFetch],
  ] as const) {
    it(`over ${transport}, tells the watch of each piece of a streamed body as it is read`, async () => {
      server.enqueue({ text: 'abcdefgh', chunkSize: 2, delayMs: 20 });
      const watch = new IdleWatch({ firstByteMs: 5_000, idleMs: 5_000 });
      let heard = 0;
      const heardBefore = watch.heard.bind(watch);
      watch.heard = () => {
        heard++;
        heardBefore();
      };
      const fetcher = watchedFetch(base);
      const response = await fetcher(`${server.anthropicBaseURL}/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': secretKey },
        body: JSON.stringify({ model: 'claude-sonnet-4-6', max_tokens: 10, stream: true, messages: [] }),
        ...watchedRequest(watch),
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/event-stream');
      // Nothing is read yet, so nothing is heard: the reader sets the pace.
      expect(heard).toBe(0);
      const decoder = new TextDecoder();
      let text = '';
      for await (const piece of response.body as unknown as AsyncIterable<Uint8Array | string>) text += typeof piece === 'string' ? piece : decoder.decode(piece);
      watch.stop();
      expect(text).toContain('event: message_stop');
      expect(heard).toBeGreaterThan(3);
      // The watch never reaches the server: it is not sent as a header or anything else.
      expect(JSON.stringify(server.requests[0]?.headers)).not.toContain('idleWatch');
    });
  }

  it('passes a request without a watch, and an error response, through unchanged', async () => {
    const calls: unknown[] = [];
    const base = (async (input: string | URL | Request, init?: RequestInit) => {
      calls.push(init);
      return new Response('{"error":"nope"}', { status: 500 });
    }) as typeof fetch;
    const plain = await watchedFetch(base)('http://127.0.0.1:1/x', { method: 'POST' });
    expect(calls[0]).toEqual({ method: 'POST' });
    expect(await plain.text()).toBe('{"error":"nope"}');
    const watch = new IdleWatch({ firstByteMs: 5_000, idleMs: 5_000 });
    const failed = await watchedFetch(base)('http://127.0.0.1:1/x', { method: 'POST', ...watchedRequest(watch) });
    watch.stop();
    expect(Object.getOwnPropertySymbols(calls[1])).toEqual([]);
    expect(failed.status).toBe(500);
    expect(await failed.json()).toEqual({ error: 'nope' });
  });
});

describe('timeoutsFromEnv', () => {
  it("reads the provider's own variables first, then the ones for every provider, in seconds", () => {
    const env = {
      OPERATOR_MODEL_FIRST_BYTE_SECONDS: '20',
      OPERATOR_MODEL_IDLE_SECONDS: '15',
      OPERATOR_OPENAI_FIRST_BYTE_SECONDS: '300',
      OPERATOR_ANTHROPIC_IDLE_SECONDS: '2.5',
    };
    expect(timeoutsFromEnv(env, 'openai')).toEqual({ firstByteMs: 300_000, idleMs: 15_000 });
    expect(timeoutsFromEnv(env, 'anthropic')).toEqual({ firstByteMs: 20_000, idleMs: 2_500 });
    expect(timeoutsFromEnv(env)).toEqual({ firstByteMs: 20_000, idleMs: 15_000 });
  });

  it('keeps the default for what is unset, empty or not a positive number', () => {
    expect(timeoutsFromEnv({}, 'openai')).toEqual({});
    expect(timeoutsFromEnv({ OPERATOR_OPENAI_FIRST_BYTE_SECONDS: ' ', OPERATOR_MODEL_IDLE_SECONDS: '-1', OPERATOR_OPENAI_IDLE_SECONDS: 'soon' }, 'openai')).toEqual({});
  });
});

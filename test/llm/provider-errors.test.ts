/**
 * Every error kind from real HTTP responses, through the real SDKs and classifyError, on both
 * providers.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ErrorKind } from '../../src/core/errors.ts';
import { createAnthropicProvider } from '../../src/llm/providers/anthropic.ts';
import { createOpenAIProvider } from '../../src/llm/providers/openai.ts';
import type { Provider } from '../../src/llm/types.ts';
import { startFakeModelServer, type FakeModelServer, type ReplySpec } from '../fakes/fake-model-server.ts';
import { finalError, request, run, secretKey } from './helpers.ts';

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

// Servers and proxies echo credentials in error messages; none may reach our messages.
const leaky = `Authorization: Bearer ${secretKey}; x-api-key: ${secretKey}; key=${secretKey}`;

type Case = [name: string, reply: ReplySpec, kind: ErrorKind, extra?: { retryAfterMs?: number; statusCode?: number }];

const anthropicCases: Case[] = [
  ['429 with retry-after seconds', { error: { status: 429, message: 'Number of request tokens has exceeded your per-minute rate limit', retryAfterSeconds: 7 } }, 'RATE_LIMIT', { retryAfterMs: 7000, statusCode: 429 }],
  ['429 with retry-after as HTTP date', { error: { status: 429, headers: { 'retry-after': new Date(Date.now() + 3_600_000).toUTCString() } } }, 'RATE_LIMIT'],
  ['529 overloaded', { error: { status: 529, message: 'Overloaded' } }, 'OVERLOADED', { statusCode: 529 }],
  ['503', { error: { status: 503 } }, 'OVERLOADED'],
  ['500', { error: { status: 500, message: 'Internal server error' } }, 'SERVER_ERROR'],
  ['502', { error: { status: 502 } }, 'SERVER_ERROR'],
  ['504', { error: { status: 504 } }, 'TIMEOUT'],
  ['401', { error: { status: 401, message: `invalid x-api-key (${leaky})` } }, 'AUTH'],
  ['403', { error: { status: 403, message: 'Your API key does not have permission to use the specified resource.' } }, 'AUTH_PERMANENT'],
  ['402', { error: { status: 402, message: 'Payment required' } }, 'BILLING'],
  ['400 credit balance too low', { error: { status: 400, message: 'Your credit balance is too low to access the Anthropic API.' } }, 'BILLING'],
  ['404', { error: { status: 404, message: 'model: claude-nope' } }, 'MODEL_NOT_FOUND'],
  ['400 prompt is too long', { error: { status: 400, message: 'prompt is too long: 210000 tokens > 200000 maximum' } }, 'CONTEXT_OVERFLOW'],
  ['413 request too large', { error: { status: 413, message: 'Request exceeds the maximum allowed number of bytes.' } }, 'CONTEXT_OVERFLOW'],
  ['400 other', { error: { status: 400, message: 'messages.1.content.0.type: Field required' } }, 'FORMAT_ERROR'],
  ['422', { error: { status: 422 } }, 'FORMAT_ERROR'],
  ['SSE overloaded_error', { streamError: { type: 'overloaded_error', message: 'Overloaded' }, afterEvents: 4 }, 'OVERLOADED'],
  ['SSE api_error', { streamError: { type: 'api_error', message: 'Internal server error' }, afterEvents: 2 }, 'SERVER_ERROR'],
  ['SSE error before any event', { streamError: { type: 'rate_limit_error', message: 'slow down' } }, 'RATE_LIMIT'],
];

const openaiCases: Case[] = [
  ['429 rate limit with retry-after-ms', { error: { status: 429, message: 'Rate limit reached for requests', code: 'rate_limit_exceeded', headers: { 'retry-after-ms': '1500' } } }, 'RATE_LIMIT', { retryAfterMs: 1500 }],
  ['429 insufficient_quota', { error: { status: 429, type: 'insufficient_quota', code: 'insufficient_quota', message: 'You exceeded your current quota, please check your plan and billing details.' } }, 'BILLING'],
  ['400 context_length_exceeded', { error: { status: 400, code: 'context_length_exceeded', message: "This model's maximum context length is 128000 tokens." } }, 'CONTEXT_OVERFLOW'],
  ['400 maximum context length without code', { error: { status: 400, message: "This model's maximum context length is 8192 tokens. However, you requested 9000 tokens." } }, 'CONTEXT_OVERFLOW'],
  ['400 content_filter', { error: { status: 400, code: 'content_filter', message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy." } }, 'CONTENT_BLOCKED'],
  ['401', { error: { status: 401, code: 'invalid_api_key', message: `Incorrect API key provided: ${secretKey}. You can find your API key at https://platform.openai.com/account/api-keys.` } }, 'AUTH'],
  ['403', { error: { status: 403, message: 'Project does not have access to model' } }, 'AUTH_PERMANENT'],
  ['404', { error: { status: 404, code: 'model_not_found', message: 'The model `gpt-9` does not exist' } }, 'MODEL_NOT_FOUND'],
  ['500', { error: { status: 500 } }, 'SERVER_ERROR'],
  ['503', { error: { status: 503 } }, 'OVERLOADED'],
  ['400 other', { error: { status: 400, message: "Invalid value for 'messages'." } }, 'FORMAT_ERROR'],
  ['error chunk mid-stream', { streamError: { type: 'server_error', message: 'The server had an error while processing your request.' }, afterEvents: 3 }, 'SERVER_ERROR'],
];

function check(provider: () => Provider, model: string, cases: Case[]) {
  it.each(cases)('%s -> %s', async (_name, reply, kind, extra) => {
    server.enqueue(reply);
    const { error, partial } = finalError(await run(provider(), request(model)));
    expect(error.kind).toBe(kind);
    expect(error.provider).toBe(provider().name);
    if (extra?.statusCode !== undefined) expect(error.statusCode).toBe(extra.statusCode);
    if (extra?.retryAfterMs !== undefined) expect(error.retryAfterMs).toBe(extra.retryAfterMs);
    if ('error' in reply) expect(error.statusCode).toBe(reply.error.status);
    if ('streamError' in reply) expect(error.message).toContain(reply.streamError.message);
    expect(partial?.stopReason).toBe('error');
    for (const text of [error.message, String(error), error.stack ?? '', JSON.stringify(error.details)]) {
      expect(text).not.toContain(secretKey);
      expect(text).not.toContain('SECRET0123456789');
    }
  });
}

describe('Anthropic errors through the real SDK', () => {
  check(() => anthropic, 'claude-sonnet-4-6', anthropicCases);

  it('reads an HTTP-date retry-after as the delay until then', async () => {
    server.enqueue({ error: { status: 429, headers: { 'retry-after': new Date(Date.now() + 3_600_000).toUTCString() } } });
    const { error } = finalError(await run(anthropic, request('claude-sonnet-4-6')));
    expect(error.retryAfterMs).toBeGreaterThan(3_000_000);
    expect(error.retryAfterMs).toBeLessThanOrEqual(3_600_000);
  });

  it('keeps the partial message of an SSE error event', async () => {
    server.enqueue({ streamError: { type: 'overloaded_error', message: 'Overloaded' }, afterEvents: 4 });
    const { partial } = finalError(await run(anthropic, request('claude-sonnet-4-6')));
    expect(partial?.content).toEqual([{ type: 'text', text: 'partial ' }]);
  });

  it('writes a clear message: provider, kind, status and the provider explanation', async () => {
    server.enqueue({ error: { status: 429, message: 'Number of request tokens has exceeded your per-minute rate limit' } });
    const { error } = finalError(await run(anthropic, request('claude-sonnet-4-6')));
    expect(error.message).toBe('anthropic: rate limit reached (HTTP 429): Number of request tokens has exceeded your per-minute rate limit');
    expect(error.retryable).toBe(true);
  });
});

describe('OpenAI errors through the real SDK', () => {
  check(() => openai, 'gpt-5.2', openaiCases);
});

describe('connection failures', () => {
  it('reports a refused connection as retryable UNKNOWN', async () => {
    const closed = await startFakeModelServer();
    const url = closed.url;
    await closed.close();
    for (const provider of [createAnthropicProvider({ apiKey: secretKey, baseURL: url }), createOpenAIProvider({ apiKey: secretKey, baseURL: `${url}/v1` })]) {
      const { error } = finalError(await run(provider, request('claude-sonnet-4-6')));
      expect(error.kind).toBe('UNKNOWN');
      expect(error.retryable).toBe(true);
      expect(error.message).not.toContain(secretKey);
    }
  });

  it('reports a stream that ends cleanly before its natural end as an error', async () => {
    // A server that closes the response politely after the first event.
    const early = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      const isOpenAI = _request.url?.includes('chat/completions') ?? false;
      response.end(
        isOpenAI
          ? `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content: 'half' }, finish_reason: null }] })}\n\n`
          : `event: message_start\ndata: ${JSON.stringify({ type: 'message_start', message: { id: 'm', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 1, output_tokens: 1 } } })}\n\n`,
      );
    });
    await new Promise<void>((resolve) => early.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(early.address() as AddressInfo).port}`;
    try {
      for (const provider of [createAnthropicProvider({ apiKey: secretKey, baseURL: url }), createOpenAIProvider({ apiKey: secretKey, baseURL: `${url}/v1` })]) {
        const events = await run(provider, request('some-model'));
        expect(events[0]?.type).toBe('message-start');
        const { error } = finalError(events);
        expect(error.kind).toBe('UNKNOWN');
        expect(error.message).toContain('stream ended before the message was complete');
      }
    } finally {
      early.closeAllConnections();
      await new Promise<void>((resolve) => early.close(() => resolve()));
    }
  });
});

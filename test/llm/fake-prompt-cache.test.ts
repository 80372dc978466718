/**
 * The fake server's prompt-cache simulation, driven through operator's providers and the real
 * SDKs. Expected numbers follow the documented rule: a part costs ceil(JSON length / 4) tokens.
 */
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createAnthropicProvider } from '../../src/llm/providers/anthropic.ts';
import { createOpenAIProvider } from '../../src/llm/providers/openai.ts';
import type { Message, Provider, ToolDefinition } from '../../src/llm/types.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { finalMessage, request, run, userText } from './helpers.ts';

const tokensOf = (value: unknown) => Math.ceil(JSON.stringify(value).length / 4);
const model = 'claude-sonnet-4-6';
const schema = { type: 'object', properties: { path: { type: 'string' } } };

/** A tool whose Anthropic definition (without `cache_control`) is exactly `tokens` tokens. */
function toolOf(name: string, tokens: number): ToolDefinition {
  const bare = JSON.stringify({ name, description: '', input_schema: schema }).length;
  return { name, description: 'd'.repeat(tokens * 4 - bare), parameters: schema };
}

/** A system prompt whose Anthropic text block is exactly `tokens` tokens. */
function systemOf(tokens: number, fill = 'S'): string {
  return fill.repeat(tokens * 4 - JSON.stringify({ type: 'text', text: '' }).length);
}

let servers: FakeModelServer[] = [];
let cached: FakeModelServer;
let anthropic: Provider;
let openai: Provider;

beforeAll(async () => {
  cached = await startFakeModelServer({ promptCache: true });
  servers.push(cached);
  anthropic = createAnthropicProvider({ apiKey: 'test-key', baseURL: cached.anthropicBaseURL });
  openai = createOpenAIProvider({ apiKey: 'test-key', baseURL: cached.openaiBaseURL });
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
  servers = [];
});
beforeEach(() => cached.reset());

async function startExtra(options: Parameters<typeof startFakeModelServer>[0]): Promise<FakeModelServer> {
  const server = await startFakeModelServer(options);
  servers.push(server);
  return server;
}

const cacheOf = (server: FakeModelServer, index: number) => server.requests[index]?.cache;

describe('simulated Anthropic prompt cache', () => {
  it('serves a growing conversation from the cache, with exact numbers', async () => {
    const tools = [toolOf('read_file', 500)];
    const systemPrompt = systemOf(1000);
    const messages: Message[] = [userText('hello')];
    // tools 500 + system 1000 + {"type":"text","text":"hello"} 8
    const first = finalMessage(await run(anthropic, request(model, messages, { systemPrompt, tools })));
    expect(cacheOf(cached, 0)).toEqual({ inputTokens: 1508, cacheReadTokens: 0, cacheWriteTokens: 1508 });
    expect(first.usage).toEqual({ input: 0, output: 5, cacheRead: 0, cacheWrite: 1508 });

    // + assistant "ok" 7 + "next" 8: the previous last breakpoint is read, the new blocks written.
    messages.push(first, userText('next'));
    const second = finalMessage(await run(anthropic, request(model, messages, { systemPrompt, tools })));
    expect(cacheOf(cached, 1)).toEqual({ inputTokens: 1523, cacheReadTokens: 1508, cacheWriteTokens: 15 });
    expect(second.usage).toEqual({ input: 0, output: 5, cacheRead: 1508, cacheWrite: 15 });

    messages.push(second);
    for (let turn = 3; turn <= 30; turn++) {
      messages.push(userText(`turn ${turn}`));
      messages.push(finalMessage(await run(anthropic, request(model, messages, { systemPrompt, tools }))));
    }
    for (let index = 1; index < 30; index++) {
      const cache = cacheOf(cached, index);
      expect(cache?.cacheReadTokens).toBe(cacheOf(cached, index - 1)?.inputTokens);
      expect(cache?.cacheWriteTokens).toBe((cache?.inputTokens ?? 0) - (cache?.cacheReadTokens ?? 0));
    }
    const stats = cached.cacheStats();
    expect(stats.requests).toBe(30);
    expect(stats.readFraction).toBeGreaterThanOrEqual(0.9);
    expect(stats.readFraction).toBeLessThan(1);
  });

  it('misses everything after a changed byte in the system prompt, but still reads the tools', async () => {
    const tools = [toolOf('read_file', 1200)];
    const messages = [userText('hello')];
    await run(anthropic, request(model, messages, { systemPrompt: systemOf(1000, 'a'), tools }));
    const changed = `${systemOf(1000, 'a').slice(0, -1)}b`;
    await run(anthropic, request(model, messages, { systemPrompt: changed, tools }));
    expect(cacheOf(cached, 1)).toEqual({ inputTokens: 2208, cacheReadTokens: 1200, cacheWriteTokens: 1008 });

    // The same again now reads everything.
    await run(anthropic, request(model, messages, { systemPrompt: changed, tools }));
    expect(cacheOf(cached, 2)).toEqual({ inputTokens: 2208, cacheReadTokens: 2208, cacheWriteTokens: 0 });
  });

  it('misses everything when the tools are reordered', async () => {
    const tools = [toolOf('read_file', 700), toolOf('shell', 700)];
    const systemPrompt = systemOf(100);
    await run(anthropic, request(model, [userText('hello')], { systemPrompt, tools }));
    await run(anthropic, request(model, [userText('hello')], { systemPrompt, tools: [...tools].reverse() }));
    expect(cacheOf(cached, 1)).toEqual({ inputTokens: 1508, cacheReadTokens: 0, cacheWriteTokens: 1508 });
  });

  it('keeps system and tools but misses the messages when the thinking settings change', async () => {
    const systemPrompt = systemOf(1100);
    await run(anthropic, request(model, [userText('hello')], { systemPrompt }));
    await run(anthropic, request(model, [userText('hello')], { systemPrompt, reasoningEffort: 'low' }));
    expect(cached.requests[1]?.body.thinking).toBeDefined();
    expect(cacheOf(cached, 1)).toEqual({ inputTokens: 1108, cacheReadTokens: 1100, cacheWriteTokens: 8 });
  });

  it('looks back only 20 blocks from a breakpoint', async () => {
    const systemPrompt = systemOf(1100);
    const messages = [userText('start')];
    await run(anthropic, request(model, messages, { systemPrompt }));
    // 21 more user messages merge into one message of 22 blocks: the old prefix is 21 back.
    for (let index = 0; index < 21; index++) messages.push(userText(`m${index}`));
    await run(anthropic, request(model, messages, { systemPrompt }));
    expect(cacheOf(cached, 1)?.cacheReadTokens).toBe(1100);
    const withOneLess = messages.slice(0, -1);
    await run(anthropic, request(model, withOneLess, { systemPrompt }));
    expect(cacheOf(cached, 2)?.cacheReadTokens).toBe(cacheOf(cached, 0)?.inputTokens);
  });

  it('does not cache prefixes below minTokens', async () => {
    await run(anthropic, request(model, [userText('hello')], { tools: [toolOf('read_file', 300)] }));
    await run(anthropic, request(model, [userText('hello')], { tools: [toolOf('read_file', 300)] }));
    const total = 300 + tokensOf({ type: 'text', text: 'You are a test.' }) + tokensOf({ type: 'text', text: 'hello' });
    expect(cacheOf(cached, 1)).toEqual({ inputTokens: total, cacheReadTokens: 0, cacheWriteTokens: 0 });

    const lowMinimum = await startExtra({ promptCache: { minTokens: 16 } });
    const provider = createAnthropicProvider({ apiKey: 'test-key', baseURL: lowMinimum.anthropicBaseURL });
    await run(provider, request(model, [userText('hello')], { tools: [toolOf('read_file', 300)] }));
    const again = finalMessage(await run(provider, request(model, [userText('hello')], { tools: [toolOf('read_file', 300)] })));
    expect(again.usage).toEqual({ input: 0, output: 5, cacheRead: total, cacheWrite: 0 });
  });

  it('expires entries 5 minutes after their last use on the injected clock', async () => {
    let time = 0;
    const clocked = await startExtra({ promptCache: { now: () => time } });
    const provider = createAnthropicProvider({ apiKey: 'test-key', baseURL: clocked.anthropicBaseURL });
    const send = () => run(provider, request(model, [userText('hello')], { systemPrompt: systemOf(1100) }));
    await send();
    time = 4 * 60_000;
    await send();
    time = 9 * 60_000 - 1;
    await send();
    time = 14 * 60_000;
    await send();
    expect(clocked.requests.map((recorded) => recorded.cache?.cacheReadTokens)).toEqual([0, 1108, 1108, 0]);
  });

  it('refreshes an entry found by looking back, though no breakpoint of the reader is on it', async () => {
    let time = 0;
    const clocked = await startExtra({ promptCache: { now: () => time } });
    const provider = createAnthropicProvider({ apiKey: 'test-key', baseURL: clocked.anthropicBaseURL });
    const systemPrompt = systemOf(1100);
    const short = [userText('hello')];
    await run(provider, request(model, short, { systemPrompt }));
    time = 4 * 60_000;
    await run(provider, request(model, [...short, userText('more')], { systemPrompt }));
    time = 8 * 60_000;
    await run(provider, request(model, short, { systemPrompt }));
    expect(clocked.requests.map((recorded) => recorded.cache?.cacheReadTokens)).toEqual([0, 1108, 1108]);
  });

  it('keeps an entry written with ttl "1h" for an hour', async () => {
    let time = 0;
    const clocked = await startExtra({ promptCache: { now: () => time } });
    const sdk = new Anthropic({ apiKey: 'test-key', baseURL: clocked.anthropicBaseURL, maxRetries: 0 });
    const send = (ttl: '5m' | '1h') =>
      sdk.messages.create({
        model,
        max_tokens: 10,
        system: [{ type: 'text', text: systemOf(1100), cache_control: { type: 'ephemeral', ttl } }],
        messages: [{ role: 'user', content: 'hello' }],
      });
    await send('1h');
    time = 59 * 60_000;
    const hit = await send('1h');
    time = 59 * 60_000 + 6 * 60_000;
    await send('5m');
    expect(hit.usage).toMatchObject({ input_tokens: 8, cache_read_input_tokens: 1100, cache_creation_input_tokens: 0 });
    expect(clocked.requests[2]?.cache?.cacheReadTokens).toBe(1100);
  });
});

describe('simulated cache bookkeeping', () => {
  it('lets scripted usage win but still records and counts the simulation', async () => {
    const systemPrompt = systemOf(1100);
    cached.enqueue({ text: 'scripted', usage: { input: 3, output: 4 } }, { text: 'output only', usage: { output: 9 } });
    const scripted = finalMessage(await run(anthropic, request(model, [userText('hello')], { systemPrompt })));
    expect(scripted.usage).toEqual({ input: 3, output: 4, cacheRead: 0, cacheWrite: 0 });
    expect(cacheOf(cached, 0)).toEqual({ inputTokens: 1108, cacheReadTokens: 0, cacheWriteTokens: 1108 });
    const partly = finalMessage(await run(anthropic, request(model, [userText('hello')], { systemPrompt })));
    expect(partly.usage).toEqual({ input: 0, output: 9, cacheRead: 1108, cacheWrite: 0 });
  });

  it('sums totals, skips HTTP errors and starts over on reset', async () => {
    const systemPrompt = systemOf(1100);
    await run(anthropic, request(model, [userText('hello')], { systemPrompt }));
    cached.enqueue({ error: { status: 529 } });
    await run(anthropic, request(model, [userText('hello')], { systemPrompt }));
    await run(anthropic, request(model, [userText('hello')], { systemPrompt }));
    expect(cached.requests[1]?.cache).toBeUndefined();
    expect(cached.cacheStats()).toEqual({ requests: 2, inputTokens: 2216, cacheReadTokens: 1108, cacheWriteTokens: 1108, readFraction: 0.5 });

    cached.reset();
    expect(cached.cacheStats()).toEqual({ requests: 0, inputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, readFraction: 0 });
    await run(anthropic, request(model, [userText('hello')], { systemPrompt }));
    expect(cacheOf(cached, 0)?.cacheReadTokens).toBe(0);
  });

  it('is off unless asked for', async () => {
    const plain = await startExtra(undefined);
    const provider = createAnthropicProvider({ apiKey: 'test-key', baseURL: plain.anthropicBaseURL });
    const message = finalMessage(await run(provider, request(model, [userText('hello')], { systemPrompt: systemOf(1100) })));
    expect(message.usage).toEqual({ input: 10, output: 5, cacheRead: 0, cacheWrite: 0 });
    expect(plain.requests[0]?.cache).toBeUndefined();
    expect(plain.cacheStats().requests).toBe(0);
  });
});

describe('simulated OpenAI prompt cache', () => {
  // {"role":"system","content":"...} is 30 characters around the text.
  const systemPrompt = 'S'.repeat(6000);
  const systemTokens = Math.ceil(6030 / 4);

  it('caches a shared prefix automatically, from 1024 tokens in steps of 128', async () => {
    const messages: Message[] = [userText('hello')];
    const first = finalMessage(await run(openai, request('gpt-5.2', messages, { systemPrompt })));
    const firstTotal = systemTokens + tokensOf({ role: 'user', content: 'hello' });
    expect(cacheOf(cached, 0)).toEqual({ inputTokens: firstTotal, cacheReadTokens: 0, cacheWriteTokens: 0 });
    expect(first.usage).toMatchObject({ input: firstTotal, cacheRead: 0 });

    messages.push(first, userText('next'));
    const second = finalMessage(await run(openai, request('gpt-5.2', messages, { systemPrompt })));
    const body = cached.requests[1]?.body as { messages: unknown[] };
    const secondTotal = body.messages.reduce((sum: number, message) => sum + tokensOf(message), 0);
    const expected = 1024 + Math.floor((firstTotal - 1024) / 128) * 128;
    expect(cacheOf(cached, 1)).toEqual({ inputTokens: secondTotal, cacheReadTokens: expected, cacheWriteTokens: 0 });
    expect(second.usage).toMatchObject({ input: secondTotal - expected, cacheRead: expected });
  });

  it('shares a prompt up to the first changed character', async () => {
    await run(openai, request('gpt-5.2', [userText('hello')], { systemPrompt }));
    const changed = `${systemPrompt.slice(0, 5000)}x${systemPrompt.slice(5001)}`;
    await run(openai, request('gpt-5.2', [userText('hello')], { systemPrompt: changed }));
    // 28 + 5000 equal characters are 1257 tokens: 1024 + one step of 128.
    expect(cacheOf(cached, 1)?.cacheReadTokens).toBe(1152);
    // Another model has its own cache.
    await run(openai, request('gpt-5-mini', [userText('hello')], { systemPrompt }));
    expect(cacheOf(cached, 2)?.cacheReadTokens).toBe(0);
  });

  it('caches nothing for prompts under 1024 tokens', async () => {
    await run(openai, request('gpt-5.2', [userText('hello')], { systemPrompt: 'S'.repeat(3000) }));
    await run(openai, request('gpt-5.2', [userText('hello')], { systemPrompt: 'S'.repeat(3000) }));
    expect(cacheOf(cached, 1)?.cacheReadTokens).toBe(0);
  });
});

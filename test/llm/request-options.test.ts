/**
 * `topP`, stop sequences, metadata and provider options as they reach each provider: the bodies
 * the fake server recorded from the real @anthropic-ai/sdk and openai SDKs.
 */
import { describe, expect, it } from 'vitest';
import type { ModelRequest, Provider } from '../../src/llm/types.ts';
import { finalError, finalMessage, request, run, useFakeProviders, userText } from './helpers.ts';

const fake = useFakeProviders();

const options: Partial<ModelRequest> = {
  temperature: 0.3,
  topP: 0.8,
  stopSequences: ['\nEND', '###'],
  metadata: { userId: 'u-7f3a9c', tags: { conversation: 'telegram:dm:42', profile: 'default' } },
};

/** The body of the one request the fake server got. */
async function sent(provider: Provider, model: string, extra: Partial<ModelRequest>): Promise<Record<string, unknown>> {
  finalMessage(await run(provider, request(model, [userText('hi')], extra)));
  expect(fake.server.requests).toHaveLength(1);
  return fake.server.requests[0]!.body as Record<string, unknown>;
}

describe('request options: Anthropic', () => {
  it('sends stop sequences and the user id, and no sampling parameters', async () => {
    const body = await sent(fake.anthropic, 'claude-sonnet-4-6', options);
    expect(body.stop_sequences).toEqual(['\nEND', '###']);
    expect(body.metadata).toEqual({ user_id: 'u-7f3a9c' });
    expect(body).not.toHaveProperty('top_p');
    expect(body).not.toHaveProperty('temperature');
  });

  it('sends none of them when unset', async () => {
    const body = await sent(fake.anthropic, 'claude-sonnet-4-6', {});
    expect(body).not.toHaveProperty('stop_sequences');
    expect(body).not.toHaveProperty('metadata');
  });

  it('adds its own provider options and ignores the others', async () => {
    const body = await sent(fake.anthropic, 'claude-sonnet-4-6', { providerOptions: { anthropic: { service_tier: 'standard_only', max_tokens: 99 }, openai: { store: true } } });
    expect(body.service_tier).toBe('standard_only');
    expect(body.max_tokens).toBe(99);
    expect(body).not.toHaveProperty('store');
  });

  it('ends the call with a clear, final error when an option would replace the messages', async () => {
    const events = await run(fake.anthropic, request('claude-sonnet-4-6', [userText('hi')], { providerOptions: { anthropic: { messages: [], model: 'x' } } }));
    const { error } = finalError(events);
    expect(error.kind).toBe('FORMAT_ERROR');
    expect(error.retryable).toBe(false);
    expect(error.message).toBe('anthropic: providerOptions may not set messages, model (the request sets them itself)');
    expect(fake.server.requests).toHaveLength(0);
  });
});

describe('request options: OpenAI', () => {
  it('sends top_p, stop and the safety identifier; the tags stay home without store', async () => {
    const body = await sent(fake.openai, 'gpt-4.1', options);
    expect(body).toMatchObject({ temperature: 0.3, top_p: 0.8, stop: ['\nEND', '###'], safety_identifier: 'u-7f3a9c' });
    expect(body).not.toHaveProperty('metadata');
    expect(body).not.toHaveProperty('store');
  });

  it('sends the tags as metadata when the provider options turn store on', async () => {
    const body = await sent(fake.openai, 'gpt-4.1', { ...options, providerOptions: { openai: { store: true, service_tier: 'flex' } } });
    expect(body).toMatchObject({ store: true, service_tier: 'flex', metadata: { conversation: 'telegram:dm:42', profile: 'default' } });
  });

  it('leaves sampling parameters and stop sequences out for a known reasoning model', async () => {
    const body = await sent(fake.openai, 'gpt-5.2', options);
    expect(body).not.toHaveProperty('temperature');
    expect(body).not.toHaveProperty('top_p');
    expect(body).not.toHaveProperty('stop');
    expect(body.safety_identifier).toBe('u-7f3a9c');
  });

  it('refuses provider options that would replace the stream settings', async () => {
    const { error } = finalError(await run(fake.openai, request('gpt-4.1', [userText('hi')], { providerOptions: { openai: { stream_options: null } } })));
    expect(error.kind).toBe('FORMAT_ERROR');
    expect(error.message).toContain('stream_options');
    expect(fake.server.requests).toHaveLength(0);
  });
});

describe('request options: Gemini', () => {
  it('sends the sampling parameters to a thinking model, stop and its own options, and no metadata (its endpoint refuses unknown fields)', async () => {
    const body = await sent(fake.gemini, 'gemini-2.5-flash', { ...options, providerOptions: { gemini: { seed: 7 }, openai: { store: true } } });
    expect(body).toMatchObject({ temperature: 0.3, top_p: 0.8, stop: ['\nEND', '###'], seed: 7 });
    expect(body).not.toHaveProperty('safety_identifier');
    expect(body).not.toHaveProperty('metadata');
    expect(body).not.toHaveProperty('store');
  });
});

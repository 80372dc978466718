import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.ts';
import { createModelClient, providerRegistry, resolveModel } from '../../src/llm/model-client.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { finalMessage, request, run } from './helpers.ts';

const anthropicEnv = { ANTHROPIC_API_KEY: 'sk-ant-test' };
const openaiEnv = { OPENAI_API_KEY: 'sk-test' };
const localEnv = { OPENAI_BASE_URL: 'http://127.0.0.1:1/v1' };

describe('resolveModel', () => {
  it('resolves aliases and ids through the catalog', () => {
    expect(resolveModel('sonnet', {})).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-6' });
    expect(resolveModel('sonnet', {}).info?.id).toBe('claude-sonnet-4-6');
    expect(resolveModel('gpt5', {})).toMatchObject({ provider: 'openai', model: 'gpt-5.2' });
    expect(resolveModel('o3', {})).toMatchObject({ provider: 'openai', model: 'o3' });
    expect(resolveModel('claude-sonnet-4-5-20250929', {})).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-5-20250929' });
  });

  it('routes unknown ids by prefix', () => {
    expect(resolveModel('claude-next-7', {})).toEqual({ provider: 'anthropic', model: 'claude-next-7', info: undefined });
    for (const id of ['gpt-6', 'o1-preview', 'o3-pro', 'o4-nano', 'codex-max']) {
      expect(resolveModel(id, anthropicEnv)).toEqual({ provider: 'openai', model: id, info: undefined });
    }
  });

  it('forces the provider with a provider: prefix and keeps the name unchanged', () => {
    expect(resolveModel('openai:llama3.1:8b', {})).toEqual({ provider: 'openai', model: 'llama3.1:8b', info: undefined });
    expect(resolveModel('openai:claude-sonnet-4-6', {})).toEqual({ provider: 'openai', model: 'claude-sonnet-4-6', info: undefined });
    expect(resolveModel('openai:gpt-5.2', {}).info?.id).toBe('gpt-5.2');
    expect(resolveModel('anthropic:my-proxy-model', {})).toMatchObject({ provider: 'anthropic', model: 'my-proxy-model' });
  });

  it('sends other unknown ids to whichever provider has credentials, Anthropic first', () => {
    expect(resolveModel('mystery', { ...anthropicEnv, ...openaiEnv }).provider).toBe('anthropic');
    expect(resolveModel('mystery', openaiEnv).provider).toBe('openai');
    expect(resolveModel('llama3:8b', localEnv)).toEqual({ provider: 'openai', model: 'llama3:8b', info: undefined });
    expect(() => resolveModel('mystery', {})).toThrow(ConfigurationError);
  });

  it("sends Gemini models, the catalog's and new ones, to the Gemini provider whatever else has credentials", () => {
    expect(resolveModel('gemini-pro', { ...anthropicEnv, ...openaiEnv })).toMatchObject({ provider: 'gemini', model: 'gemini-3-pro-preview' });
    expect(resolveModel('gemini-flash', {})).toMatchObject({ provider: 'gemini', model: 'gemini-3-flash-preview' });
    expect(resolveModel('gemini-2.5-pro', openaiEnv).info?.price.output).toBe(10);
    expect(resolveModel('gemini-9-ultra', { ...anthropicEnv, ...openaiEnv })).toEqual({ provider: 'gemini', model: 'gemini-9-ultra', info: undefined });
    expect(resolveModel('gemini:my-tuned-model', anthropicEnv)).toEqual({ provider: 'gemini', model: 'my-tuned-model', info: undefined });
    // An unknown id goes to Gemini when only Gemini has credentials.
    expect(resolveModel('mystery', { GOOGLE_API_KEY: 'AIza-test' }).provider).toBe('gemini');
  });
});

describe('createModelClient', () => {
  let server: FakeModelServer;
  beforeAll(async () => {
    server = await startFakeModelServer();
  });
  afterAll(() => server.close());

  it('defaults to claude-sonnet-4-6 with an Anthropic key, else gpt-5.2 with an OpenAI key', () => {
    const anthropic = createModelClient({ ...anthropicEnv, ...openaiEnv });
    expect(anthropic.provider.name).toBe('anthropic');
    expect(anthropic.model).toBe('claude-sonnet-4-6');
    expect(anthropic.info?.id).toBe('claude-sonnet-4-6');
    const openai = createModelClient(openaiEnv);
    expect(openai.provider.name).toBe('openai');
    expect(openai.model).toBe('gpt-5.2');
  });

  it('follows OPERATOR_MODEL', () => {
    const client = createModelClient({ ...anthropicEnv, ...openaiEnv, OPERATOR_MODEL: 'gpt4.1' });
    expect(client.provider.name).toBe('openai');
    expect(client.model).toBe('gpt-4.1');
  });

  it('defaults to gemini-2.5-pro with only a Gemini key (GEMINI_API_KEY or GOOGLE_API_KEY)', () => {
    for (const env of [{ GEMINI_API_KEY: 'AIza-test' }, { GOOGLE_API_KEY: 'AIza-test' }]) {
      const client = createModelClient(env);
      expect(client.provider.name).toBe('gemini');
      expect(client.model).toBe('gemini-2.5-pro');
    }
    expect(createModelClient({ ...openaiEnv, GEMINI_API_KEY: 'AIza-test' }).provider.name).toBe('openai');
  });

  it('explains what to set when nothing is configured', () => {
    expect(() => createModelClient({})).toThrow(ConfigurationError);
    expect(() => createModelClient({})).toThrow(/ANTHROPIC_API_KEY.*OPENAI_API_KEY.*GEMINI_API_KEY.*OPENAI_BASE_URL.*OPERATOR_MODEL/);
    expect(() => createModelClient(localEnv)).toThrow(/OPERATOR_MODEL=openai:<model>/);
  });

  it('talks to a local OpenAI-compatible server without a key', async () => {
    server.reset();
    server.enqueue({ text: 'local hello' });
    const client = createModelClient({ OPENAI_BASE_URL: server.openaiBaseURL, OPERATOR_MODEL: 'openai:qwen2.5:7b' });
    expect(client.model).toBe('qwen2.5:7b');
    const message = finalMessage(await run(client.provider, request(client.model)));
    expect(message.content).toEqual([{ type: 'text', text: 'local hello' }]);
    expect(server.requests[0]?.body.model).toBe('qwen2.5:7b');
  });

  it('passes the environment base URL to the Anthropic SDK', async () => {
    server.reset();
    const client = createModelClient({ ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.anthropicBaseURL, OPERATOR_MODEL: 'haiku' });
    const message = finalMessage(await run(client.provider, request(client.model)));
    expect(message.model).toBe('claude-haiku-4-5');
    expect(server.requests[0]?.protocol).toBe('anthropic');
  });

  it('has one registry entry per provider', () => {
    expect(Object.keys(providerRegistry)).toEqual(['anthropic', 'openai', 'gemini']);
  });
});

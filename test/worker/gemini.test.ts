/**
 * Gemini on Cloudflare Workers: `GEMINI_API_KEY` (or `GOOGLE_API_KEY`) set as a Worker secret
 * enables the catalog's Gemini models as on Node, through Google's OpenAI-compatible endpoint
 * (`GEMINI_BASE_URL` here points at the fake model server's), with the openai SDK inside workerd.
 */
import { describe, expect, inject, it } from 'vitest';
import { complete } from '../../src/llm/complete.ts';
import { modelClientOf } from '../../src/worker/conversation-agent.ts';
import type { WorkerEnv } from '../../src/worker/worker-env.ts';
import { callFake, readFake } from './support/fakes.ts';

const key = 'gemini-worker-test-key-0123456789';
const geminiBase = `${new URL(inject('fakeBindings').ANTHROPIC_BASE_URL!).origin}/v1beta/openai/`;
const requests = () => readFake<{ path: string; headers: Record<string, string>; body: { model?: string } }[]>('model', 'requests');

describe('Gemini on Workers', () => {
  it("answers with a Gemini model when the Worker has Gemini's key, and sends the key only to Gemini's endpoint", async () => {
    const client = modelClientOf({ GEMINI_API_KEY: key, GEMINI_BASE_URL: geminiBase, OPERATOR_MODEL: 'gemini-pro' } as WorkerEnv);
    expect(client.info?.provider).toBe('gemini');
    await callFake('model', 'enqueue', { text: 'Hello from the Worker, by Gemini.' });
    const response = await complete(client.provider, { model: client.model, systemPrompt: 'Be brief.', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] });
    expect(response.text).toBe('Hello from the Worker, by Gemini.');
    const last = (await requests()).at(-1)!;
    expect(last.path).toBe('/v1beta/openai/chat/completions');
    expect(last.headers.authorization).toBe(`Bearer ${key}`);
    expect(last.body.model).toBe(client.model);
  });

  it('takes GOOGLE_API_KEY as well, and names what to set when neither is there', async () => {
    expect(modelClientOf({ GOOGLE_API_KEY: key, GEMINI_BASE_URL: geminiBase, OPERATOR_MODEL: 'gemini-flash' } as WorkerEnv).info?.provider).toBe('gemini');
    const unconfigured = modelClientOf({ OPERATOR_MODEL: 'gemini-flash' } as WorkerEnv);
    await expect(complete(unconfigured.provider, { model: unconfigured.model, systemPrompt: '', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] })).rejects.toThrow(/GEMINI_API_KEY/);
  });
});

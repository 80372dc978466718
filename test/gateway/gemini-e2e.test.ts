/**
 * Gemini in the real gateway process: GEMINI_API_KEY and GEMINI_BASE_URL (the fake model server's
 * Gemini endpoint) with OPERATOR_MODEL naming a catalog alias, asked through the OpenAI-compatible
 * API with the `openai` SDK. A tool call round trip keeps Gemini 3's thought signature (the fake
 * refuses the second call without it), thought tokens are counted and priced from the catalog, a
 * refused key is an error the caller gets without the key, which no output of the gateway shows.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { getModelInfo } from '../../src/llm/catalog.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

const geminiKey = 'AIzaSyFAKE-e2e-gemini-key-0123456789abc';
const apiToken = 'api-token-for-gemini-tests-0123456789';

/** The gateway's `turn.end` log records of a conversation (JSON lines on stderr). */
function turnEnds(gateway: StartedGateway, conversation: string): { costUsd: number; tokens: { input: number; output: number } }[] {
  return gateway.output
    .stderr()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes('"event":"turn.end"') && line.includes(`"conversation":"${conversation}"`))
    .map((line) => JSON.parse(line) as { costUsd: number; tokens: { input: number; output: number } });
}

describe('Gemini through the gateway', () => {
  let model: FakeModelServer;
  let gateway: StartedGateway;
  let home: string;
  const client = () => new OpenAI({ apiKey: apiToken, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });

  beforeAll(async () => {
    model = await startFakeModelServer();
    home = createTempHome('operator-gemini-e2e-');
    gateway = await startGateway({ home, env: { GEMINI_API_KEY: geminiKey, GEMINI_BASE_URL: model.geminiBaseURL, OPERATOR_MODEL: 'gemini-flash', OPERATOR_API_TOKEN: apiToken, OPERATOR_LOG_FORMAT: 'json' } });
  });

  afterAll(async () => {
    await gateway?.stop();
    await model?.close();
    removeTempHome(home);
  });

  beforeEach(() => model.reset());

  it('answers with the catalog model the alias names, through a tool call whose thought signature goes back, and prices the thinking', async () => {
    expect(gateway.output.stdout()).toContain('model: gemini-3-flash-preview');
    model.enqueue(
      { toolCalls: [{ name: 'knowledge_search', arguments: { query: 'chat commands' }, thoughtSignature: 'sig-e2e-7' }], usage: { input: 1_000, output: 10, reasoning: 40 } },
      { text: 'The commands are listed in the knowledge.', usage: { input: 1_200, output: 30, reasoning: 20 } },
    );
    const answer = await client().chat.completions.create({ model: 'default', user: 'bob', messages: [{ role: 'user', content: 'which chat commands are there?' }] });
    expect(answer.choices[0]?.message.content).toBe('The commands are listed in the knowledge.');
    const [first, second] = model.requests;
    expect(first?.path).toBe('/v1beta/openai/chat/completions');
    expect(first?.headers.authorization).toBe(`Bearer ${geminiKey}`);
    expect(first?.body.model).toBe('gemini-3-flash-preview');
    const call = (second?.body.messages as { role: string; tool_calls?: { extra_content?: unknown }[] }[]).find((message) => message.role === 'assistant')?.tool_calls?.[0];
    expect(call?.extra_content).toEqual({ google: { thought_signature: 'sig-e2e-7' } });
    // Thought tokens are output: 10 + 40 and 30 + 20.
    expect(answer.usage).toMatchObject({ prompt_tokens: 2_200, completion_tokens: 100, total_tokens: 2_300 });
    const price = getModelInfo('gemini-3-flash-preview')!.price;
    // The log's line travels apart from the answer: waited for.
    await gateway.output.waitFor(/"event":"turn\.end"[^\n]*"conversation":"api:bob"/, { stream: 'stderr' });
    const [end] = turnEnds(gateway, 'api:bob');
    expect(end?.costUsd).toBeCloseTo((2_200 * price.input + 100 * price.output) / 1e6, 12);
  });

  it("gives the caller Gemini's refusal of the key as an upstream error, and no output shows the key", async () => {
    model.enqueue({ error: { status: 400, message: `API key not valid. Please pass a valid API key. ${geminiKey}` } });
    const failed = await client().chat.completions.create({ model: 'default', user: 'carol', messages: [{ role: 'user', content: 'hello' }] }).catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect(failed).toMatchObject({ status: 502, code: 'upstream_error' });
    expect((failed as Error).message).toContain("did not accept this bot's credentials");
    expect((failed as Error).message).not.toContain(geminiKey);
    await gateway.output.waitFor('"conversation":"api:carol"', { stream: 'stderr' });
    await gateway.output.waitFor('"kind":"AUTH"', { stream: 'stderr' });
    expect(gateway.output.all()).not.toContain(geminiKey);
    expect(gateway.output.all()).not.toContain(apiToken);
  });
});

/** Shared helpers of the model-layer tests. */
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { providerRegistry } from '../../src/llm/model-client.ts';
import { createAnthropicProvider } from '../../src/llm/providers/anthropic.ts';
import { createOpenAIProvider } from '../../src/llm/providers/openai.ts';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import type { ProviderError } from '../../src/core/errors.ts';
import type { AssistantMessage, Message, ModelRequest, Provider, StreamEvent } from '../../src/llm/types.ts';

/** Reads a whole stream. */
export async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of stream) events.push(event);
  return events;
}

/** A user message of plain text. */
export function userText(text: string): Message {
  return { role: 'user', content: [{ type: 'text', text }] };
}

/** A minimal request. */
export function request(model: string, messages: Message[] = [userText('hi')], extra: Partial<ModelRequest> = {}): ModelRequest {
  return { model, systemPrompt: 'You are a test.', messages, ...extra };
}

/** The final message of a stream that must have ended with `message-end`. */
export function finalMessage(events: StreamEvent[]): AssistantMessage {
  const last = events.at(-1);
  if (last?.type !== 'message-end') throw new Error(`stream ended with ${JSON.stringify(last)}`);
  return last.message;
}

/** The error of a stream that must have ended with `error`. */
export function finalError(events: StreamEvent[]): { error: ProviderError; partial: AssistantMessage | undefined } {
  const last = events.at(-1);
  if (last?.type !== 'error') throw new Error(`stream ended with ${JSON.stringify(last)}`);
  return { error: last.error, partial: last.partial };
}

/** Streams one request to the end. */
export function run(provider: Provider, modelRequest: ModelRequest): Promise<StreamEvent[]> {
  return collect(provider.stream(modelRequest));
}

/** The concatenated argument deltas per tool-call id. */
export function argumentDeltas(events: StreamEvent[]): Map<string, string[]> {
  const deltas = new Map<string, string[]>();
  for (const event of events) {
    if (event.type !== 'tool-call-delta') continue;
    deltas.set(event.id, [...(deltas.get(event.id) ?? []), event.argumentsDelta]);
  }
  return deltas;
}

/** A fake key in the shape of a real one, to check that no message ever shows it. */
export const secretKey = 'sk-ant-api03-SECRET0123456789abcdefXYZ';

/** The fake model server and a provider of each kind pointed at it, for one test file. */
export interface FakeProviders {
  server: FakeModelServer;
  anthropic: Provider;
  openai: Provider;
  gemini: Provider;
}

/**
 * Starts the fake model server for the file (reset before each test, closed after all) with the
 * three providers over their real SDKs. Read the fields inside tests: they are set in `beforeAll`.
 */
export function useFakeProviders(): FakeProviders {
  const providers = {} as FakeProviders;
  beforeAll(async () => {
    providers.server = await startFakeModelServer();
    providers.anthropic = createAnthropicProvider({ apiKey: secretKey, baseURL: providers.server.anthropicBaseURL });
    providers.openai = createOpenAIProvider({ apiKey: secretKey, baseURL: providers.server.openaiBaseURL });
    providers.gemini = providerRegistry.gemini({ GEMINI_API_KEY: 'AIzaSyFAKE-gemini-key-0123456789abcdefXYZ', GEMINI_BASE_URL: providers.server.geminiBaseURL });
  });
  afterAll(() => providers.server.close());
  beforeEach(() => providers.server.reset());
  return providers;
}

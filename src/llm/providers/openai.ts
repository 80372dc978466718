/**
 * The OpenAI provider: streams Chat Completions through the `openai` SDK, against OpenAI or any
 * compatible server (vLLM, llama.cpp, Ollama, LiteLLM, ...), and speaks the neutral
 * {@link StreamEvent}s. With the `gemini` dialect it is the Gemini provider, through Google's
 * OpenAI-compatible endpoint (the differences are in `gemini-dialect.ts`).
 */
import OpenAI from 'openai';
import { ConfigurationError } from '../../core/errors.ts';
import type { ModelRequest, Provider, StopReason, StreamEvent } from '../types.ts';
import { AssistantMessageBuilder } from './assistant-message-builder.ts';
import { toOpenAIRequest, type ChatDialect } from './openai-request.ts';
import { geminiDefaultBaseURL, geminiUsage, thoughtSignatureOf, unwrapGeminiErrors } from './gemini-dialect.ts';
import { IdleWatch, sdkTimeoutMarginMs, type StreamTimeouts } from './idle-watch.ts';
import { watchedFetch, watchedRequest } from './watched-fetch.ts';
import { runProviderStream } from './run-provider-stream.ts';
import { untilAborted } from './until-aborted.ts';
import { keepAliveFetch, loadKeepAliveFetch } from '../../core/keep-alive-fetch.ts';

/** Options of {@link createOpenAIProvider}. Unset values come from the SDK's environment handling. */
export interface OpenAIProviderOptions {
  /**
   * Default: `OPENAI_API_KEY` (the `openai` dialect only). Optional when a base URL is set (local
   * servers need none).
   */
  apiKey?: string;
  /** Default: `OPENAI_BASE_URL`, else the public API; with the `gemini` dialect, Google's endpoint. */
  baseURL?: string;
  /**
   * Whose Chat Completions to speak: `openai` (default; OpenAI and compatible servers) or `gemini`
   * (Google's OpenAI-compatible endpoint: the provider is then named `gemini`, and never reads the
   * OPENAI_* variables, so an OpenAI key cannot travel to Google).
   */
  dialect?: ChatDialect;
  /**
   * Longest wait, in milliseconds, for the first stream event of a request (the response headers
   * included), then between two events (default {@link openaiDefaultTimeouts}).
   */
  timeouts?: Partial<StreamTimeouts>;
}

/**
 * OpenAI's timeouts: Chat Completions sends nothing while a reasoning model reasons, before its
 * first chunk and between tool-call rounds of thought, so the waits are longer than Anthropic's.
 */
export const openaiDefaultTimeouts: StreamTimeouts = { firstByteMs: 180_000, idleMs: 120_000 };

// The SDK refuses to start without a key; a local compatible server ignores it.
const placeholderKey = 'no-key-needed';

/**
 * Creates the OpenAI (or OpenAI-compatible) provider. The SDK does not retry (`maxRetries: 0`):
 * the Agent owns retries.
 *
 * @throws ConfigurationError when there is neither an API key nor a base URL.
 */
export function createOpenAIProvider(options: OpenAIProviderOptions = {}): Provider {
  const timeouts: StreamTimeouts = { ...openaiDefaultTimeouts, ...options.timeouts };
  const dialect = options.dialect ?? 'openai';
  const gemini = dialect === 'gemini';
  const providerName = dialect;
  const baseURL = options.baseURL ?? (gemini ? geminiDefaultBaseURL : readEnv('OPENAI_BASE_URL'));
  // A server of one's own needs no key: a base URL set (for Gemini, one other than Google's) stands in for it.
  const ownServer = gemini ? options.baseURL !== undefined : baseURL !== undefined;
  const apiKey = options.apiKey ?? (gemini ? undefined : readEnv('OPENAI_API_KEY')) ?? (ownServer ? placeholderKey : undefined);
  if (apiKey === undefined) {
    throw new ConfigurationError(
      gemini ? 'Gemini provider: set GEMINI_API_KEY (or GOOGLE_API_KEY), or GEMINI_BASE_URL for a compatible server' : 'OpenAI provider: set OPENAI_API_KEY, or OPENAI_BASE_URL for a local compatible server',
    );
  }
  // Every byte of a streamed body, keep-alives included, tells the request's watch the stream lives.
  const fetch = watchedFetch(keepAliveFetch);
  const client = new OpenAI({
    apiKey,
    ...(baseURL !== undefined && { baseURL }),
    // A backstop for the wait for the headers: the watch below ends that wait first, naming its limit.
    timeout: timeouts.firstByteMs + sdkTimeoutMarginMs,
    maxRetries: 0,
    fetch: gemini ? unwrapGeminiErrors(fetch) : fetch,
  });
  // The SDK's transport, loaded in the background; the first calls may use Node's own fetch.
  void loadKeepAliveFetch().catch(() => undefined);
  return {
    name: providerName,
    stream(request: ModelRequest): AsyncIterable<StreamEvent> {
      const builder = new AssistantMessageBuilder(providerName, request.model);
      return runProviderStream(builder, request, () => streamEvents(client, request, builder, timeouts, dialect));
    },
  };
}

function readEnv(name: string): string | undefined {
  const value = process.env[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** Compatible servers stream reasoning in a field the SDK types do not name. */
type Delta = OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta & { reasoning_content?: string | null; reasoning?: string | null };

async function* streamEvents(
  client: OpenAI,
  request: ModelRequest,
  builder: AssistantMessageBuilder,
  timeouts: StreamTimeouts,
  dialect: ChatDialect,
): AsyncGenerator<StreamEvent> {
  const providerName = dialect;
  const watch = new IdleWatch(timeouts, request.signal);
  let finished = false;
  try {
    const stream = await client.chat.completions.create(toOpenAIRequest(request, dialect), { signal: watch.signal, fetchOptions: watchedRequest(watch) });
    let started = false;
    for await (const chunk of untilAborted(stream, watch.signal)) {
      // Paused while the caller handles the chunk: only the server's silence counts.
      watch.hold();
      if (!started) {
        started = true;
        yield { type: 'message-start', model: request.model };
      }
      readUsage(chunk, builder, dialect);
      const choice = chunk.choices[0];
      if (choice !== undefined) {
        yield* handleDelta(choice.delta as Delta, builder);
        if (choice.finish_reason) {
          yield* finish(choice.finish_reason, builder);
          finished = true;
        }
      }
      watch.resume();
    }
  } catch (error) {
    watch.throwIfExpired(providerName);
    throw error;
  } finally {
    watch.stop();
  }
  watch.throwIfExpired(providerName);
  // Complete only once the stream ended normally: the usage chunk follows the finish reason.
  builder.complete = finished;
}

function readUsage(chunk: OpenAI.Chat.Completions.ChatCompletionChunk, builder: AssistantMessageBuilder, dialect: ChatDialect): void {
  if (!chunk.usage) return;
  if (dialect === 'gemini') {
    builder.usage = geminiUsage(chunk.usage);
    return;
  }
  const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
  builder.usage = {
    input: chunk.usage.prompt_tokens - cached,
    output: chunk.usage.completion_tokens,
    cacheRead: cached,
    cacheWrite: 0,
  };
  const reasoning = chunk.usage.completion_tokens_details?.reasoning_tokens;
  if (reasoning !== undefined && reasoning > 0) builder.usage.reasoning = reasoning;
}

function* finish(reason: string, builder: AssistantMessageBuilder): Generator<StreamEvent> {
  const openCalls = builder.openToolCallKeys();
  for (const key of openCalls) {
    const call = builder.endToolCall(key);
    if (call !== undefined) yield { type: 'tool-call-end', call };
  }
  const stopReason = mapFinishReason(reason);
  // Some compatible servers say `stop` even when the answer is tool calls.
  builder.stopReason = stopReason === 'stop' && openCalls.length > 0 ? 'tool-calls' : stopReason;
}

function* handleDelta(delta: Delta, builder: AssistantMessageBuilder): Generator<StreamEvent> {
  const reasoning = delta.reasoning_content ?? delta.reasoning;
  if (typeof reasoning === 'string' && reasoning !== '') {
    builder.appendThinking(reasoning);
    yield { type: 'thinking-delta', text: reasoning };
  }
  for (const text of [delta.content, delta.refusal]) {
    if (typeof text === 'string' && text !== '') {
      builder.appendText(text);
      yield { type: 'text-delta', text };
    }
  }
  for (const toolCall of delta.tool_calls ?? []) {
    const key = `tool:${toolCall.index}`;
    let open = builder.toolCall(key);
    if (open === undefined) {
      const id = toolCall.id ?? `call_${toolCall.index}`;
      const name = toolCall.function?.name ?? '';
      builder.startToolCall(key, id, name);
      open = { id, name };
      yield { type: 'tool-call-start', id, name };
    }
    const signature = thoughtSignatureOf(toolCall);
    if (signature !== undefined) builder.setToolCallSignature(key, signature);
    const argumentsDelta = toolCall.function?.arguments;
    if (argumentsDelta !== undefined && argumentsDelta !== '') {
      builder.appendToolArguments(key, argumentsDelta);
      yield { type: 'tool-call-delta', id: open.id, argumentsDelta };
    }
  }
}

function mapFinishReason(reason: string): StopReason {
  switch (reason) {
    case 'stop':
      return 'stop';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'length':
      return 'length';
    case 'content_filter':
      return 'content-filter';
    default:
      return 'other';
  }
}

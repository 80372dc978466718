/**
 * The Anthropic provider: streams the Messages API through `@anthropic-ai/sdk` and speaks the
 * neutral {@link StreamEvent}s.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { Messages } from '@anthropic-ai/sdk/resources/messages';
import type { ModelRequest, Provider, StopReason, StreamEvent } from '../types.ts';
import { AssistantMessageBuilder } from './assistant-message-builder.ts';
import { toAnthropicRequest } from './anthropic-request.ts';
import { IdleWatch, sdkTimeoutMarginMs, type StreamTimeouts } from './idle-watch.ts';
import { watchedFetch, watchedRequest } from './watched-fetch.ts';
import { runProviderStream } from './run-provider-stream.ts';
import { untilAborted } from './until-aborted.ts';
import { keepAliveFetch, loadKeepAliveFetch } from '../../core/keep-alive-fetch.ts';

/** Options of {@link createAnthropicProvider}. Unset values come from the SDK's environment handling. */
export interface AnthropicProviderOptions {
  /** Default: `ANTHROPIC_API_KEY`. */
  apiKey?: string;
  /** Default: `ANTHROPIC_BASE_URL`, else the public API. */
  baseURL?: string;
  /**
   * Longest wait, in milliseconds, for the first stream event of a request (the response headers
   * included), then between two events (default {@link anthropicDefaultTimeouts}).
   */
  timeouts?: Partial<StreamTimeouts>;
}

const providerName = 'anthropic';

/**
 * The SDK's client with the Messages API alone. The SDK's `Anthropic` class also makes its other
 * APIs (models, files, skills, organization, beta, ...), which operator never calls: their code,
 * two thirds of what the SDK puts in the start's bundle, would load with every start.
 */
class MessagesClient extends BaseAnthropic {
  readonly messages = new Messages(this);
}

/**
 * Anthropic's timeouts: its stream opens with `message_start` as soon as the request is taken and
 * sends `ping` events while the model thinks (the SDK drops them; the watch hears them), so a
 * minute of silence means a stalled stream. The first byte gets a minute too: room for a long
 * prompt, and short enough that a hung call is tried again well within a turn's deadline.
 */
export const anthropicDefaultTimeouts: StreamTimeouts = { firstByteMs: 60_000, idleMs: 60_000 };

/**
 * Creates the Anthropic provider. The SDK does not retry (`maxRetries: 0`): the Agent owns
 * retries, so it can rewind the session and compact between attempts.
 *
 * @example
 * const provider = createAnthropicProvider();
 * for await (const event of provider.stream({ model: 'claude-sonnet-4-6', systemPrompt: '', messages })) { ... }
 */
export function createAnthropicProvider(options: AnthropicProviderOptions = {}): Provider {
  const timeouts: StreamTimeouts = { ...anthropicDefaultTimeouts, ...options.timeouts };
  const client = new MessagesClient({
    ...(options.apiKey !== undefined && { apiKey: options.apiKey }),
    ...(options.baseURL !== undefined && { baseURL: options.baseURL }),
    // A backstop for the wait for the headers: the watch below ends that wait first, naming its limit.
    timeout: timeouts.firstByteMs + sdkTimeoutMarginMs,
    maxRetries: 0,
    // Every byte of a streamed body, keep-alives included, tells the request's watch the stream lives.
    fetch: watchedFetch(keepAliveFetch),
  });
  // The SDK's transport, loaded in the background; the first calls may use Node's own fetch.
  void loadKeepAliveFetch().catch(() => undefined);
  return {
    name: providerName,
    stream(request: ModelRequest): AsyncIterable<StreamEvent> {
      const builder = new AssistantMessageBuilder(providerName, request.model);
      return runProviderStream(builder, request, () => streamEvents(client, request, builder, timeouts));
    },
  };
}

async function* streamEvents(
  client: MessagesClient,
  request: ModelRequest,
  builder: AssistantMessageBuilder,
  timeouts: StreamTimeouts,
): AsyncGenerator<StreamEvent> {
  const watch = new IdleWatch(timeouts, request.signal);
  const state: StreamState = { responseBlocks: new Set(), toolCalls: 0 };
  try {
    const stream = await client.messages.create(toAnthropicRequest(request), { signal: watch.signal, fetchOptions: watchedRequest(watch) });
    for await (const event of untilAborted(stream, watch.signal)) {
      // Paused while the caller handles the event: only the server's silence counts.
      watch.hold();
      yield* handleEvent(event, request, builder, state);
      watch.resume();
    }
  } catch (error) {
    watch.throwIfExpired(providerName);
    throw error;
  } finally {
    watch.stop();
  }
  watch.throwIfExpired(providerName);
}

/** What one stream keeps besides the message: which blocks are the response format's answer. */
interface StreamState {
  /** Indexes of `tool_use` blocks of the response tool: streamed as text (the JSON object). */
  responseBlocks: Set<number>;
  /** Calls of the caller's own tools. */
  toolCalls: number;
}

function* handleEvent(
  event: Anthropic.RawMessageStreamEvent,
  request: ModelRequest,
  builder: AssistantMessageBuilder,
  state: StreamState,
): Generator<StreamEvent> {
  switch (event.type) {
    case 'message_start': {
      const usage = event.message.usage;
      builder.usage = {
        input: usage.input_tokens,
        output: usage.output_tokens,
        cacheRead: usage.cache_read_input_tokens ?? 0,
        cacheWrite: usage.cache_creation_input_tokens ?? 0,
      };
      yield { type: 'message-start', model: request.model };
      return;
    }
    case 'content_block_start': {
      const block = event.content_block;
      if (block.type === 'tool_use' && block.name === request.responseFormat?.name) {
        // The answer of a response format: its arguments are the JSON object, given as text.
        state.responseBlocks.add(event.index);
      } else if (block.type === 'tool_use') {
        state.toolCalls++;
        builder.startToolCall(event.index, block.id, block.name);
        yield { type: 'tool-call-start', id: block.id, name: block.name };
      } else if (block.type === 'redacted_thinking') {
        builder.addRedactedThinking(block.data, event.index);
      } else if (block.type === 'text' && block.text !== '') {
        builder.appendText(block.text, event.index);
        yield { type: 'text-delta', text: block.text };
      } else if (block.type === 'thinking' && block.thinking !== '') {
        builder.appendThinking(block.thinking, event.index);
        yield { type: 'thinking-delta', text: block.thinking };
      }
      return;
    }
    case 'content_block_delta': {
      const delta = event.delta;
      if (delta.type === 'text_delta') {
        builder.appendText(delta.text, event.index);
        yield { type: 'text-delta', text: delta.text };
      } else if (delta.type === 'thinking_delta') {
        builder.appendThinking(delta.thinking, event.index);
        yield { type: 'thinking-delta', text: delta.thinking };
      } else if (delta.type === 'signature_delta') {
        builder.setThinkingSignature(delta.signature, event.index);
      } else if (delta.type === 'input_json_delta' && state.responseBlocks.has(event.index)) {
        if (delta.partial_json === '') return;
        builder.appendText(delta.partial_json, event.index);
        yield { type: 'text-delta', text: delta.partial_json };
      } else if (delta.type === 'input_json_delta') {
        const call = builder.toolCall(event.index);
        if (call === undefined || delta.partial_json === '') return;
        builder.appendToolArguments(event.index, delta.partial_json);
        yield { type: 'tool-call-delta', id: call.id, argumentsDelta: delta.partial_json };
      }
      return;
    }
    case 'content_block_stop': {
      const call = builder.endToolCall(event.index);
      if (call !== undefined) yield { type: 'tool-call-end', call };
      return;
    }
    case 'message_delta': {
      const usage = event.usage;
      // message_delta carries cumulative counts; fields it leaves null keep message_start's.
      builder.usage = {
        input: usage.input_tokens ?? builder.usage.input,
        output: usage.output_tokens ?? builder.usage.output,
        cacheRead: usage.cache_read_input_tokens ?? builder.usage.cacheRead,
        cacheWrite: usage.cache_creation_input_tokens ?? builder.usage.cacheWrite,
      };
      const thinkingTokens = usage.output_tokens_details?.thinking_tokens;
      if (thinkingTokens !== undefined && thinkingTokens > 0) builder.usage.reasoning = thinkingTokens;
      if (event.delta.stop_reason !== null) {
        const answered = event.delta.stop_reason === 'tool_use' && state.toolCalls === 0 && state.responseBlocks.size > 0;
        // A response format's answer is the end of the turn, not a tool call to run.
        builder.stopReason = answered ? 'stop' : mapStopReason(event.delta.stop_reason);
      }
      return;
    }
    case 'message_stop':
      builder.complete = true;
      return;
  }
}

function mapStopReason(reason: Anthropic.StopReason): StopReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'tool_use':
      return 'tool-calls';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}

/**
 * The non-streaming call: one model request in, the whole answer out, for callers that do not
 * show the answer as it is written (a pipeline's routing decision, a structured object).
 *
 * It is built on `Provider.stream`, not on the SDKs' non-streaming endpoints: one conversion of
 * requests and answers per provider instead of two, and the idle watch of the stream keeps
 * working. A non-streamed answer sends nothing until it is complete, so a reasoning model thinking
 * for minutes would be cut off by the first-byte limit (or the limit would have to go); streamed,
 * Anthropic's pings show it alive, and the timeouts stay those of every other call
 * (`timeouts` of the providers, `OPERATOR_MODEL_*_SECONDS`).
 */
import { setTimeout as sleepFor } from 'node:timers/promises';
import { backoffDelay } from '../core/backoff.ts';
import { CancellationError, InternalError } from '../core/errors.ts';
import type { ProviderError } from '../core/errors.ts';
import { emptyUsage, type AssistantMessage, type ModelRequest, type Provider, type StopReason, type ToolCallPart, type Usage } from './types.ts';

/** The whole answer of one model call. */
export interface ModelResponse {
  message: AssistantMessage;
  /** The concatenated text parts. */
  text: string;
  /** The concatenated reasoning, when the model showed any. */
  reasoning: string | undefined;
  toolCalls: ToolCallPart[];
  /** Usage of the call that answered (failed attempts before it are not counted). */
  usage: Usage;
  stopReason: StopReason;
}

/** How {@link complete} retries a call that failed for a passing reason. */
export interface CompleteRetry {
  /** Retries after the first attempt (default 2). */
  maxRetries: number;
  /**
   * Delay before retry n is `baseDelayMs * multiplier^(n-1)` (jittered when `jitter` is on), at
   * least the provider's `retry-after` (default 1000).
   */
  baseDelayMs: number;
  /** How much longer each further retry waits (default 2: doubling). */
  multiplier: number;
  /**
   * Each wait times a random factor between 0.5 and 1.5 (default on): calls that failed together
   * (one provider outage, many conversations) do not all come back at the same instant. A
   * provider's `retry-after` is waited as asked, never less.
   */
  jitter: boolean;
  /** A provider asking to wait longer than this is not retried, and no wait is longer (default 60000). */
  maxDelayMs: number;
}

/** Options of {@link complete}. */
export interface CompleteOptions {
  retry?: Partial<CompleteRetry>;
  /** Waits between retries; injectable so tests need not sleep. Rejects when `signal` aborts. */
  sleep?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
}

/** Two retries after about 1 s and 2 s, jittered (the SDKs themselves never retry: see `src/llm/README.md`). */
export const defaultCompleteRetry: CompleteRetry = { maxRetries: 2, baseDelayMs: 1_000, multiplier: 2, jitter: true, maxDelayMs: 60_000 };

/**
 * Sends `request` and resolves to the whole answer. A failure whose kind is retryable (rate limit,
 * overload, server error, timeout, a broken stream) is tried again, as `options.retry` says.
 *
 * @throws ProviderError when the call fails for good (not retryable, or retries used up).
 * @throws CancellationError when `request.signal` aborts.
 * @example
 * const { text } = await complete(provider, { model: 'claude-haiku-4-5', systemPrompt: '', messages: [...] });
 */
export async function complete(provider: Provider, request: ModelRequest, options: CompleteOptions = {}): Promise<ModelResponse> {
  const retry = { ...defaultCompleteRetry, ...options.retry };
  const sleep = options.sleep ?? defaultSleep;
  for (let attempt = 0; ; attempt++) {
    const outcome = await once(provider, request);
    if ('message' in outcome) return modelResponse(outcome.message);
    const delay = retryDelay(outcome.error, attempt + 1, retry);
    if (delay === undefined || request.signal?.aborted) throw outcome.error;
    try {
      await sleep(delay, request.signal);
    } catch {
      throw new CancellationError();
    }
  }
}

async function once(provider: Provider, request: ModelRequest): Promise<{ message: AssistantMessage } | { error: ProviderError }> {
  for await (const event of provider.stream(request)) {
    if (event.type === 'message-end') {
      if (event.message.stopReason === 'aborted') throw new CancellationError();
      return { message: event.message };
    }
    if (event.type === 'error') return { error: event.error };
  }
  if (request.signal?.aborted) throw new CancellationError();
  throw new InternalError(`${provider.name}: model stream ended without a final message`);
}

function retryDelay(error: ProviderError, retry: number, settings: CompleteRetry): number | undefined {
  if (!error.retryable || retry > settings.maxRetries) return undefined;
  const retryAfter = error.retryAfterMs;
  if (retryAfter !== undefined && retryAfter > settings.maxDelayMs) return undefined;
  const backoff = backoffDelay({ initialDelayMs: settings.baseDelayMs, multiplier: settings.multiplier, maxDelayMs: settings.maxDelayMs, jitter: settings.jitter }, retry);
  return Math.max(backoff, retryAfter ?? 0);
}

async function defaultSleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  await sleepFor(ms, undefined, signal ? { signal } : {});
}

/** A finished message as a {@link ModelResponse}. */
export function modelResponse(message: AssistantMessage): ModelResponse {
  let text = '';
  let reasoning: string | undefined;
  const toolCalls: ToolCallPart[] = [];
  for (const part of message.content) {
    if (part.type === 'text') text += part.text;
    else if (part.type === 'thinking') reasoning = (reasoning ?? '') + part.text;
    else toolCalls.push(part);
  }
  return {
    message,
    text,
    reasoning: reasoning === '' ? undefined : reasoning,
    toolCalls,
    usage: message.usage ?? emptyUsage(),
    stopReason: message.stopReason ?? 'other',
  };
}

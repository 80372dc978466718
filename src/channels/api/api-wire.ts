/**
 * What the OpenAI-compatible API sends back: a `chat.completion`, the `chat.completion.chunk`s of
 * a streamed one, the model list, and how a turn that failed becomes an error with a status.
 */
import { failure, type ApiFailure } from './api-errors.ts';

/** A turn's tokens as the gateway counts them (every model call of the turn). */
export interface TurnTokens {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/** How a turn in an API conversation ended, as the gateway reports it. */
export interface ApiTurnEnd {
  sessionKey: string;
  /** The turn's id: `<dedupe key of its message>#0`. */
  turnId: string;
  status: 'ok' | 'error' | 'stopped' | 'timeout' | 'left';
  tokens: TurnTokens;
  /** What failed, when it did: an error's category and, for a provider's, its kind. */
  failure?: { category: string; kind?: string; provider?: string; retryAfterMs?: number };
}

/** OpenAI's usage object. */
export interface ApiUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

/** A turn's tokens as OpenAI counts them: the prompt with its cached part, the completion. */
export function usageOf(tokens: TurnTokens): ApiUsage {
  const prompt = tokens.input + tokens.cacheRead + tokens.cacheWrite;
  return { prompt_tokens: prompt, completion_tokens: tokens.output, total_tokens: prompt + tokens.output, prompt_tokens_details: { cached_tokens: tokens.cacheRead } };
}

/** What every completion and chunk of one answer shares. */
export interface CompletionHead {
  id: string;
  /** Seconds since the epoch. */
  created: number;
  model: string;
}

/** The whole answer (`stream` false). */
export function completion(head: CompletionHead, content: string, usage: ApiUsage): unknown {
  return {
    id: head.id,
    object: 'chat.completion',
    created: head.created,
    model: head.model,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage,
  };
}

/** One `chat.completion.chunk` as an SSE event: a delta, the finish, or (no choices) the usage. */
export function chunkEvent(head: CompletionHead, part: { delta: Record<string, unknown>; finish?: string } | { usage: ApiUsage }): string {
  const choices = 'usage' in part ? [] : [{ index: 0, delta: part.delta, logprobs: null, finish_reason: part.finish ?? null }];
  const body = { id: head.id, object: 'chat.completion.chunk', created: head.created, model: head.model, choices, ...('usage' in part && { usage: part.usage }) };
  return `data: ${JSON.stringify(body)}\n\n`;
}

/** The end of a stream. */
export const doneEvent = 'data: [DONE]\n\n';

/** An error inside a stream (after its 200 went out), as OpenAI sends one: its SDK raises it. */
export function errorEvent(failed: ApiFailure): string {
  return `data: ${JSON.stringify({ error: failed.error })}\n\n`;
}

/** `GET /v1/models`: the profiles, as models. */
export function modelList(names: readonly string[], created: number): unknown {
  return { object: 'list', data: names.map((name) => modelObject(name, created)) };
}

/** One model (a profile). */
export function modelObject(name: string, created: number): unknown {
  return { id: name, object: 'model', created, owned_by: 'operator' };
}

/**
 * The error a failed turn is answered with: what the person would have been told (`told`), with
 * the status a client acts on. A spending cap is 429 `insufficient_quota` (waiting for its reset
 * helps, retrying now does not); the model provider's rate limit 429, its overload 503, its
 * silence 504, any other failure of it (a refused key, a model it does not know) 502, since the
 * caller did nothing wrong; a conversation too long for the model, or content the provider
 * blocked, 400; a turn past its deadline 504; a gateway that cannot answer now (stopping, its
 * store failing, model calls paused) 503; anything else 500.
 */
export function turnFailure(end: ApiTurnEnd, told: string | undefined): ApiFailure {
  const { category, kind, provider, retryAfterMs } = end.failure ?? { category: 'INTERNAL' };
  const retryAfter = retryAfterMs === undefined ? undefined : Math.max(1, Math.ceil(retryAfterMs / 1000));
  const say = (fallback: string) => told?.trim() || fallback;
  if (end.status === 'left') return failure(503, say('The gateway cannot answer right now (it is stopping, its storage fails, or model calls are paused). Try again later.'), 'server_error', 'service_unavailable');
  if (end.status === 'timeout') return failure(504, say('The answer did not finish within the gateway\'s time limit for a turn.'), 'server_error', 'timeout');
  if (category === 'BUDGET') return failure(429, say('A spending cap was reached.'), 'insufficient_quota', 'insufficient_quota');
  if (category !== 'PROVIDER') return failure(500, say('Something went wrong while answering.'), 'server_error', 'internal_error');
  if (provider === 'unconfigured') return failure(503, say('The gateway has no model configured.'), 'server_error', 'no_model_configured');
  switch (kind) {
    case 'RATE_LIMIT':
      return failure(429, say('The model provider is rate limiting the gateway.'), 'rate_limit_error', 'upstream_rate_limited', null, retryAfter);
    case 'OVERLOADED':
      return failure(503, say('The model provider is overloaded.'), 'server_error', 'upstream_overloaded', null, retryAfter);
    case 'TIMEOUT':
      return failure(504, say('The model provider did not answer in time.'), 'server_error', 'upstream_timeout');
    case 'CONTEXT_OVERFLOW':
      return failure(400, say('The conversation is too long for the model: send /new to start a fresh one.'), 'invalid_request_error', 'context_length_exceeded');
    case 'CONTENT_BLOCKED':
      return failure(400, say('The model provider blocked the content.'), 'invalid_request_error', 'content_filter');
    default:
      return failure(502, say('The model provider failed.'), 'server_error', 'upstream_error');
  }
}

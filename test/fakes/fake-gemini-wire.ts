/**
 * Google's OpenAI-compatible endpoint (`/v1beta/openai/chat/completions`) as the fake model server
 * speaks it: the OpenAI wire of `fake-openai-wire.ts` with Gemini's differences.
 *
 * - Tool calls carry a thought signature (`extra_content.google.thought_signature`), the first
 *   call of a reply at least; a Gemini 3 model refuses, with a 400, a request whose assistant
 *   tool calls of the current turn (after the last person's message) come back without theirs.
 * - `reasoning_effort` takes `none`, `minimal`, `low`, `medium` and `high`; anything else is a 400.
 * - Usage counts thought tokens in `total_tokens` only (`completion_tokens` is the visible answer).
 * - Errors come as a JSON list holding Google's error object (`[{"error": {code, message, status}}]`).
 */
import type { ErrorReply, MessageReply } from './fake-model-types.ts';

/** The path prefix of Google's OpenAI-compatible endpoint. */
export const geminiPathPrefix = '/v1beta/openai/';

/** Whether a request went to the Gemini endpoint. */
export function isGeminiPath(path: string): boolean {
  return path.includes(geminiPathPrefix);
}

const statusNames: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** An error as the endpoint sends it: a list around Google's error object. */
export function geminiErrorBody(error: ErrorReply): unknown {
  return [{ error: { code: error.status, message: error.message ?? `fake error ${error.status}`, status: error.type ?? statusNames[error.status] ?? 'UNKNOWN' } }];
}

const efforts = new Set(['none', 'minimal', 'low', 'medium', 'high']);

interface GeminiRequest {
  model?: string;
  reasoning_effort?: unknown;
  messages?: { role?: string; tool_calls?: { extra_content?: { google?: { thought_signature?: unknown } } }[] }[];
}

/** What the endpoint would refuse with a 400 (undefined when nothing). */
export function geminiRequestProblem(body: unknown): string | undefined {
  const request = (body ?? {}) as GeminiRequest;
  if (request.reasoning_effort !== undefined && !efforts.has(String(request.reasoning_effort))) {
    return `Invalid reasoning_effort: ${String(request.reasoning_effort)}. Valid values are: high, low, medium, minimal, none`;
  }
  if (!String(request.model ?? '').startsWith('gemini-3')) return undefined;
  const messages = request.messages ?? [];
  const lastPerson = messages.findLastIndex((message) => message.role === 'user');
  for (const [index, message] of messages.entries()) {
    if (index < lastPerson || message.role !== 'assistant' || !message.tool_calls?.length) continue;
    const signature = message.tool_calls[0]?.extra_content?.google?.thought_signature;
    if (typeof signature !== 'string' || signature === '') return `Function call is missing a thought_signature in functionCall parts (message ${index}).`;
  }
  return undefined;
}

/** The thought signature the reply gives tool call `index` (the first always has one). */
export function geminiSignature(reply: MessageReply, index: number, id: string): string | undefined {
  return reply.toolCalls?.[index]?.thoughtSignature ?? (index === 0 ? `fake-signature-${id}` : undefined);
}

/** Usage as the endpoint reports it: thoughts in `total_tokens` only. */
export function geminiUsage(reply: MessageReply): unknown {
  const cached = reply.usage?.cacheRead ?? 0;
  const prompt = (reply.usage?.input ?? 10) + cached;
  const completion = reply.usage?.output ?? 5;
  const thoughts = reply.usage?.reasoning ?? 0;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion + thoughts, ...(cached > 0 && { prompt_tokens_details: { cached_tokens: cached } }) };
}

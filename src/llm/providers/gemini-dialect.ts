/**
 * Gemini through Google's OpenAI-compatible endpoint
 * (`https://generativelanguage.googleapis.com/v1beta/openai/`), spoken by the OpenAI provider
 * (`openai.ts`) with the differences that endpoint defines, all of them here:
 *
 * - **Thought signatures.** A tool call of a thinking Gemini model carries
 *   `extra_content.google.thought_signature`, which must come back with that call in the next
 *   request (Gemini 3 refuses the request with a 400 otherwise). It is kept on the neutral
 *   `ToolCallPart.signature` and sent back only to Gemini. A call made by another provider (a
 *   conversation that switched models) has none: the first call of each such assistant message
 *   gets the placeholder Google documents for history it did not make.
 * - **Usage.** Gemini bills its thinking as output. Where the endpoint leaves thought tokens out
 *   of `completion_tokens`, `total_tokens` still counts them, so output is whatever `total_tokens`
 *   has beyond the prompt.
 * - **Errors.** Google answers some errors with a JSON list holding the error object
 *   (`[{"error": {...}}]`), which the SDK would read as an error without a body; the list is
 *   unwrapped before the SDK sees it. An invalid key comes as a 400 (`API_KEY_INVALID`), which
 *   `classify-error.ts` reads as an authentication failure.
 * - **Limits.** `max_tokens` rather than `max_completion_tokens`; `reasoning_effort` as is
 *   (`low`, `medium`, `high`: the endpoint maps them to Gemini's thinking budgets and levels).
 */
import type OpenAI from 'openai';
import type { ToolCallPart, Usage } from '../types.ts';

/** Google's OpenAI-compatible endpoint. */
export const geminiDefaultBaseURL = 'https://generativelanguage.googleapis.com/v1beta/openai/';

/**
 * What Google documents as the thought signature of a function call it did not make (history from
 * another model): it lets the request through without one.
 */
export const foreignCallSignature = 'skip_thought_signature_validator';

/** A streamed tool call delta with Google's extension. */
type GeminiToolCallDelta = OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall & {
  extra_content?: { google?: { thought_signature?: unknown } };
};

/** The thought signature a streamed tool call delta carries, if any. */
export function thoughtSignatureOf(toolCall: OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall): string | undefined {
  const signature = (toolCall as GeminiToolCallDelta).extra_content?.google?.thought_signature;
  return typeof signature === 'string' && signature !== '' ? signature : undefined;
}

/**
 * The assistant message's tool calls as Gemini takes them back: each with its signature, and the
 * first (where a step's signature lives) with the placeholder when it has none.
 */
export function geminiToolCalls(
  calls: readonly OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall[],
  parts: readonly ToolCallPart[],
): OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall[] {
  return calls.map((call, index) => {
    const signature = parts[index]?.signature ?? (index === 0 ? foreignCallSignature : undefined);
    return signature === undefined ? call : ({ ...call, extra_content: { google: { thought_signature: signature } } } as typeof call);
  });
}

/** The usage of a Gemini chunk: thought tokens counted as output (see the file comment). */
export function geminiUsage(usage: OpenAI.Completions.CompletionUsage): Usage {
  const cached = usage.prompt_tokens_details?.cached_tokens ?? 0;
  const beyondPrompt = (usage.total_tokens ?? 0) - usage.prompt_tokens;
  const output = Math.max(usage.completion_tokens, beyondPrompt);
  const reasoning = usage.completion_tokens_details?.reasoning_tokens ?? (beyondPrompt > usage.completion_tokens ? beyondPrompt - usage.completion_tokens : 0);
  return { input: usage.prompt_tokens - cached, output, cacheRead: cached, cacheWrite: 0, ...(reasoning > 0 && { reasoning }) };
}

/**
 * `fetch` whose error answers Google sent as a list (`[{"error": {...}}]`) come as the error
 * object itself, as the SDK reads OpenAI's. Successful answers pass untouched (their bodies
 * stream).
 */
export function unwrapGeminiErrors(fetch: typeof globalThis.fetch): typeof globalThis.fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (response.ok) return response;
    const text = await response.text();
    // The body is read and decoded now: its length and encoding headers no longer describe it.
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    headers.delete('content-encoding');
    return new Response(unwrappedError(text), { status: response.status, statusText: response.statusText, headers });
  };
}

/** The body with a one-element list around an error object taken away; anything else as it was. */
export function unwrappedError(text: string): string {
  if (!text.trimStart().startsWith('[')) return text;
  try {
    const parsed: unknown = JSON.parse(text);
    if (Array.isArray(parsed) && typeof parsed[0] === 'object' && parsed[0] !== null && 'error' in parsed[0]) return JSON.stringify(parsed[0]);
  } catch {
    // Not JSON: the SDK reports the text as it is.
  }
  return text;
}

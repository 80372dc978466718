/** OpenAI Chat Completions wire shapes for the fake model server. */
import { chunk, defaultChunkSize, type ErrorReply, type MessageReply, type SseEvent } from './fake-model-types.ts';
import { geminiSignature, geminiUsage } from './fake-gemini-wire.ts';

const errorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'invalid_request_error',
  403: 'invalid_request_error',
  404: 'invalid_request_error',
  429: 'requests',
  500: 'server_error',
  503: 'server_error',
};

/** An SSE comment line, the keep-alive OpenAI-compatible servers send while a model thinks (the SDK skips it). */
export const openaiKeepAlive = ': keep-alive\n\n';

/** `{error:{message, type, param, code}}` as the API sends with an error status. */
export function openaiErrorBody(error: ErrorReply): unknown {
  return {
    error: {
      message: error.message ?? `fake error ${error.status}`,
      type: error.type ?? errorTypes[error.status] ?? 'server_error',
      param: null,
      code: error.code ?? null,
    },
  };
}

/**
 * What Chat Completions would refuse in a request body with a 400 (undefined when nothing): a
 * tool choice without tools or naming a function that is not there, a `json_schema` response
 * format without a name or schema.
 */
export function openaiRequestProblem(body: unknown): string | undefined {
  const request = (body ?? {}) as {
    tool_choice?: string | { type?: string; function?: { name?: string } };
    tools?: { function?: { name?: string } }[];
    response_format?: { type?: string; json_schema?: { name?: string; schema?: unknown } };
  };
  const choice = request.tool_choice;
  if (choice !== undefined) {
    const tools = request.tools ?? [];
    if (tools.length === 0) return "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.";
    if (typeof choice === 'object' && !tools.some((tool) => tool.function?.name === choice.function?.name)) {
      return `Invalid value for 'tool_choice': no function named '${choice.function?.name}' was specified in the 'tools' parameter.`;
    }
  }
  const format = request.response_format;
  if (format?.type === 'json_schema' && (!format.json_schema?.name || format.json_schema.schema === undefined)) {
    return "Missing required parameter: 'response_format.json_schema.name' or 'schema'.";
  }
  return undefined;
}

/** An error chunk inside a stream. */
export function openaiStreamError(error: { type: string; message: string }): SseEvent {
  return { data: JSON.stringify({ error: { message: error.message, type: error.type, param: null, code: null } }) };
}

function toolId(reply: MessageReply, index: number, id: string): string {
  return reply.toolCalls?.[index]?.id ?? `call_fake_${id}_${index}`;
}

function finishReasonOf(reply: MessageReply): string {
  return reply.stopReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool_calls' : 'stop');
}

function usageOf(reply: MessageReply) {
  const cached = reply.usage?.cacheRead ?? 0;
  const prompt = (reply.usage?.input ?? 10) + cached;
  const completion = reply.usage?.output ?? 5;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/**
 * The SSE chunks of a streamed reply, ending with `[DONE]`. Thinking is sent as
 * `reasoning_content`, as compatible servers (vLLM, DeepSeek) do; OpenAI itself sends none.
 * `gemini`: as Google's endpoint sends it (thought signatures, its usage; `fake-gemini-wire.ts`).
 */
export function openaiEvents(reply: MessageReply, model: string, id: string, includeUsage: boolean, gemini = false): SseEvent[] {
  const size = reply.chunkSize ?? defaultChunkSize;
  const created = 1_700_000_000;
  const events: SseEvent[] = [];
  const add = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    events.push({
      data: JSON.stringify({
        id: `chatcmpl-fake-${id}`,
        object: 'chat.completion.chunk',
        created,
        model,
        service_tier: 'default',
        system_fingerprint: 'fp_fake',
        choices,
        ...extra,
      }),
    });
  const delta = (payload: Record<string, unknown>, finishReason: string | null = null) =>
    add([{ index: 0, delta: payload, logprobs: null, finish_reason: finishReason }]);

  delta({ role: 'assistant', content: '', refusal: null });
  if (reply.thinking !== undefined) {
    for (const piece of chunk(reply.thinking.text, size)) delta({ reasoning_content: piece });
  }
  if (reply.text !== undefined) for (const piece of textChunks(reply.text, size, reply.firstChunkSize)) delta({ content: piece });
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    const signature = gemini ? geminiSignature(reply, index, id) : undefined;
    delta({
      tool_calls: [{ index, id: toolId(reply, index, id), type: 'function', function: { name: call.name, arguments: '' }, ...(signature !== undefined && { extra_content: { google: { thought_signature: signature } } }) }],
    });
    for (const piece of chunk(JSON.stringify(call.arguments), size)) {
      delta({ tool_calls: [{ index, function: { arguments: piece } }] });
    }
  }
  delta({}, finishReasonOf(reply));
  if (includeUsage) add([], { usage: gemini ? geminiUsage(reply) : usageOf(reply) });
  events.push({ data: '[DONE]' });
  return events;
}

/** The JSON completion of a non-streamed reply. */
export function openaiCompletion(reply: MessageReply, model: string, id: string, gemini = false): unknown {
  const toolCalls = (reply.toolCalls ?? []).map((call, index) => ({
    id: toolId(reply, index, id),
    type: 'function',
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
  return {
    id: `chatcmpl-fake-${id}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text ?? null,
          refusal: null,
          ...(toolCalls.length > 0 && { tool_calls: toolCalls }),
        },
        logprobs: null,
        finish_reason: finishReasonOf(reply),
      },
    ],
    usage: gemini ? geminiUsage(reply) : usageOf(reply),
  };
}

/** The text's pieces: the first `first` characters in one (when given), the rest `size` at a time. */
function textChunks(text: string, size: number, first: number | undefined): string[] {
  if (first === undefined || first <= 0) return chunk(text, size);
  return [text.slice(0, first), ...(text.length > first ? chunk(text.slice(first), size) : [])];
}

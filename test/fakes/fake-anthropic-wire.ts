/** Anthropic Messages API wire shapes for the fake model server. */
import { chunk, defaultChunkSize, type ErrorReply, type MessageReply, type SseEvent } from './fake-model-types.ts';

const errorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

/** `{type:'error', error:{type, message}}` as the API sends with an error status. */
export function anthropicErrorBody(error: ErrorReply): unknown {
  return {
    type: 'error',
    error: { type: error.type ?? errorTypes[error.status] ?? 'api_error', message: error.message ?? `fake error ${error.status}` },
    request_id: 'req_fake',
  };
}

/**
 * What the Messages API would refuse in a request body with a 400 `invalid_request_error`, among
 * the rules of thinking and tool choice (undefined when none applies): a thinking budget under
 * 1024 tokens or not below `max_tokens`, thinking with a tool choice that forces a tool call, a
 * tool choice without tools or naming a tool that is not there, a thinking block sent back
 * without its signature, a redacted thinking block without its data.
 */
export function anthropicRequestProblem(body: unknown): string | undefined {
  const request = (body ?? {}) as {
    max_tokens?: number;
    messages?: { content?: string | { type?: string; signature?: string; data?: string }[] }[];
    thinking?: { type?: string; budget_tokens?: number };
    tool_choice?: { type?: string; name?: string };
    tools?: { name?: string }[];
  };
  for (const [index, message] of (request.messages ?? []).entries()) {
    if (!Array.isArray(message.content)) continue;
    for (const [blockIndex, block] of message.content.entries()) {
      if (block.type === 'thinking' && !block.signature) return `messages.${index}.content.${blockIndex}.thinking.signature: Field required`;
      if (block.type === 'redacted_thinking' && !block.data) return `messages.${index}.content.${blockIndex}.redacted_thinking.data: Field required`;
    }
  }
  const thinking = request.thinking?.type === 'enabled' ? request.thinking : undefined;
  if (thinking !== undefined) {
    const budget = thinking.budget_tokens ?? 0;
    if (budget < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if (request.max_tokens !== undefined && budget >= request.max_tokens) return '`max_tokens` must be greater than `thinking.budget_tokens`';
  }
  const choice = request.tool_choice;
  if (choice === undefined) return undefined;
  if (thinking !== undefined && (choice.type === 'any' || choice.type === 'tool')) return 'Thinking may not be enabled when tool_choice forces tool use.';
  if ((request.tools ?? []).length === 0) return 'tool_choice may only be specified while providing tools.';
  if (choice.type === 'tool' && !(request.tools ?? []).some((tool) => tool.name === choice.name)) return `Tool '${choice.name}' not found in provided tools`;
  return undefined;
}

/** The `ping` event Anthropic sends while the model works, as raw SSE text (the SDK drops it). */
export const anthropicKeepAlive = `event: ping\ndata: ${JSON.stringify({ type: 'ping' })}\n\n`;

/** An `event: error` SSE event. */
export function anthropicStreamError(error: { type: string; message: string }): SseEvent {
  return { event: 'error', data: JSON.stringify({ type: 'error', error }) };
}

function usageOf(reply: MessageReply) {
  return {
    input: reply.usage?.input ?? 10,
    output: reply.usage?.output ?? 5,
    cacheRead: reply.usage?.cacheRead ?? 0,
    cacheWrite: reply.usage?.cacheWrite ?? 0,
  };
}

function stopReasonOf(reply: MessageReply): string {
  return reply.stopReason ?? ((reply.toolCalls?.length ?? 0) > 0 ? 'tool_use' : 'end_turn');
}

function toolId(reply: MessageReply, index: number, id: string): string {
  return reply.toolCalls?.[index]?.id ?? `toolu_fake_${id}_${index}`;
}

/** The SSE events of a streamed reply, as the API sends them. */
export function anthropicEvents(reply: MessageReply, model: string, id: string): SseEvent[] {
  const size = reply.chunkSize ?? defaultChunkSize;
  const usage = usageOf(reply);
  const events: SseEvent[] = [];
  const add = (type: string, payload: Record<string, unknown>) =>
    events.push({ event: type, data: JSON.stringify({ type, ...payload }) });

  add('message_start', {
    message: {
      id: `msg_fake_${id}`,
      type: 'message',
      role: 'assistant',
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: {
        input_tokens: usage.input,
        cache_creation_input_tokens: usage.cacheWrite,
        cache_read_input_tokens: usage.cacheRead,
        output_tokens: 1,
        service_tier: 'standard',
      },
    },
  });
  events.push({ event: 'ping', data: JSON.stringify({ type: 'ping' }) });
  let index = 0;
  if (reply.thinking !== undefined) {
    add('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } });
    for (const piece of chunk(reply.thinking.text, size)) {
      add('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } });
    }
    add('content_block_delta', { index, delta: { type: 'signature_delta', signature: reply.thinking.signature } });
    add('content_block_stop', { index });
    index++;
  }
  // A redacted block arrives whole in its start event, with no deltas.
  for (const data of reply.redactedThinking ?? []) {
    add('content_block_start', { index, content_block: { type: 'redacted_thinking', data } });
    add('content_block_stop', { index });
    index++;
  }
  if (reply.text !== undefined) {
    add('content_block_start', { index, content_block: { type: 'text', text: '' } });
    for (const piece of textChunks(reply.text, size, reply.firstChunkSize)) add('content_block_delta', { index, delta: { type: 'text_delta', text: piece } });
    add('content_block_stop', { index });
    index++;
  }
  for (const [callIndex, call] of (reply.toolCalls ?? []).entries()) {
    add('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: toolId(reply, callIndex, id), name: call.name, input: {} },
    });
    add('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: '' } });
    for (const piece of chunk(JSON.stringify(call.arguments), size)) {
      add('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } });
    }
    add('content_block_stop', { index });
    index++;
  }
  add('message_delta', {
    delta: { stop_reason: stopReasonOf(reply), stop_sequence: null },
    usage: {
      input_tokens: usage.input,
      cache_creation_input_tokens: usage.cacheWrite,
      cache_read_input_tokens: usage.cacheRead,
      output_tokens: usage.output,
    },
  });
  add('message_stop', {});
  return events;
}

/** The JSON message of a non-streamed reply. */
export function anthropicMessage(reply: MessageReply, model: string, id: string): unknown {
  const usage = usageOf(reply);
  const content: unknown[] = [];
  if (reply.thinking !== undefined) {
    content.push({ type: 'thinking', thinking: reply.thinking.text, signature: reply.thinking.signature });
  }
  for (const data of reply.redactedThinking ?? []) content.push({ type: 'redacted_thinking', data });
  if (reply.text !== undefined) content.push({ type: 'text', text: reply.text });
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    content.push({ type: 'tool_use', id: toolId(reply, index, id), name: call.name, input: call.arguments });
  }
  return {
    id: `msg_fake_${id}`,
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReasonOf(reply),
    stop_sequence: null,
    usage: {
      input_tokens: usage.input,
      cache_creation_input_tokens: usage.cacheWrite,
      cache_read_input_tokens: usage.cacheRead,
      output_tokens: usage.output,
    },
  };
}

/** The text's pieces: the first `first` characters in one (when given), the rest `size` at a time. */
function textChunks(text: string, size: number, first: number | undefined): string[] {
  if (first === undefined || first <= 0) return chunk(text, size);
  return [text.slice(0, first), ...(text.length > first ? chunk(text.slice(first), size) : [])];
}

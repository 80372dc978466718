/**
 * Neutral {@link ModelRequest} -> Anthropic Messages API request body. Pure: the same request
 * always gives the same body, byte for byte once serialized, so the prompt cache keeps hitting.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { getModelInfo } from '../catalog.ts';
import { leftOutNote } from './left-out-part.ts';
import { withProviderOptions } from './provider-options.ts';
import type { DocumentPart, ImagePart, Message, ModelRequest, ReasoningEffort, ResponseFormat, TextPart, ToolDefinition } from '../types.ts';

type ContentBlock = Anthropic.ContentBlockParam;
type Role = 'user' | 'assistant';
type MessageParam = { role: Role; content: ContentBlock[] };

/** Thinking budget in tokens per reasoning effort. */
export const thinkingBudgets: Record<ReasoningEffort, number> = { low: 2048, medium: 8192, high: 24576 };

/** `max_tokens` when neither the request nor the catalog says otherwise. */
export const defaultMaxTokens = 8192;

/** Cap of the catalog's `maxOutput` used as the default, so a call does not reserve 128K tokens. */
export const maxDefaultMaxTokens = 32000;

const ephemeral = { type: 'ephemeral' } as const;

/**
 * Builds the streaming request body.
 *
 * Cache breakpoints go on the system prompt, the last tool definition and the last block of
 * the last message, so the whole prefix is cached turn after turn. `temperature` is not sent:
 * the Messages API version the SDK speaks (2026-10-21) has no sampling parameters (so none of
 * thinking's constraints on them apply). A response format becomes one more tool, last.
 */
export function toAnthropicRequest(request: ModelRequest): Anthropic.MessageCreateParamsStreaming {
  const info = getModelInfo(request.model);
  let maxTokens = request.maxTokens ?? (info ? Math.min(info.maxOutput, maxDefaultMaxTokens) : defaultMaxTokens);
  const tools = [...(request.tools ?? []), ...(request.responseFormat ? [responseTool(request.responseFormat)] : [])];
  const toolChoice = tools.length > 0 ? toAnthropicToolChoice(request) : undefined;
  // The API refuses thinking together with a tool choice that forces a tool call.
  const forced = toolChoice?.type === 'any' || toolChoice?.type === 'tool';
  const thinkingEnabled = request.reasoningEffort !== undefined && (info?.reasoning ?? true) && !forced;
  const budget = request.reasoningEffort === undefined ? 0 : thinkingBudgets[request.reasoningEffort];
  // Thinking tokens count toward max_tokens, and the budget must stay below it.
  if (thinkingEnabled && maxTokens <= budget) maxTokens = budget + maxTokens;

  const body: Anthropic.MessageCreateParamsStreaming = {
    model: request.model,
    max_tokens: maxTokens,
    messages: toAnthropicMessages(request.messages, request.ephemeral),
    stream: true,
  };
  if (request.systemPrompt !== '') {
    body.system = [{ type: 'text', text: request.systemPrompt, cache_control: ephemeral }];
  }
  if (tools.length > 0) body.tools = toAnthropicTools(tools);
  if (toolChoice !== undefined) body.tool_choice = toolChoice;
  if (thinkingEnabled) body.thinking = { type: 'enabled', budget_tokens: budget };
  if (request.stopSequences !== undefined && request.stopSequences.length > 0) body.stop_sequences = request.stopSequences;
  if (request.metadata?.userId !== undefined) body.metadata = { user_id: request.metadata.userId };
  return withProviderOptions(body, request, 'anthropic', ownedFields);
}

/** Body fields provider options may not replace. */
const ownedFields = ['model', 'messages', 'system', 'tools', 'stream'] as const;

/** The tool through which the model gives a {@link ResponseFormat}'s object. */
function responseTool(format: ResponseFormat): ToolDefinition {
  return {
    name: format.name,
    description: format.description ?? 'Give your answer by calling this tool with it, in exactly this structure.',
    parameters: format.schema,
  };
}

/**
 * The request's tool choice on the wire. With a response format, the model must call a tool: the
 * response tool alone when there are no other tools or the choice is `none`, else any tool (one of
 * the caller's, or the answer); a named tool wins over the response format.
 */
function toAnthropicToolChoice(request: ModelRequest): Anthropic.ToolChoice | undefined {
  const choice = request.toolChoice;
  if (typeof choice === 'object') return { type: 'tool', name: choice.name };
  if (request.responseFormat !== undefined) {
    const others = (request.tools?.length ?? 0) > 0;
    return choice === 'none' || !others ? { type: 'tool', name: request.responseFormat.name } : { type: 'any' };
  }
  switch (choice) {
    case undefined:
      return undefined;
    case 'required':
      return { type: 'any' };
    case 'none':
      return { type: 'none' };
    case 'auto':
      return { type: 'auto' };
  }
}

function toAnthropicTools(tools: ToolDefinition[]): Anthropic.Tool[] {
  return tools.map((tool, index) => {
    const converted: Anthropic.Tool = {
      name: tool.name,
      description: tool.description,
      input_schema: tool.parameters as Anthropic.Tool.InputSchema,
    };
    if (index === tools.length - 1) converted.cache_control = ephemeral;
    return converted;
  });
}

/**
 * Converts the conversation. Tool results become `tool_result` blocks of a user message;
 * consecutive messages of one role are merged, since the API wants strict alternation; empty
 * messages are dropped; the last cacheable block of the last message gets a cache breakpoint.
 * `ephemeral` messages (live state for this call alone) follow that breakpoint, so the next call,
 * which no longer has them, still finds everything before cached.
 */
export function toAnthropicMessages(messages: Message[], ephemeral: Message[] = []): Anthropic.MessageParam[] {
  const result: MessageParam[] = [];
  const append = (message: Message) => {
    const role: Role = message.role === 'assistant' ? 'assistant' : 'user';
    const content = toBlocks(message);
    if (content.length === 0) return;
    const previous = result.at(-1);
    if (previous?.role === role) previous.content.push(...content);
    else result.push({ role, content });
  };
  for (const message of messages) append(message);
  markLastBlock(result.at(-1));
  for (const message of ephemeral) append(message);
  return result;
}

function toBlocks(message: Message): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  if (message.role === 'tool') {
    for (const part of message.content) {
      const content = part.content.flatMap((item): (Anthropic.TextBlockParam | Anthropic.ImageBlockParam)[] =>
        item.type === 'text' ? textBlock(item) : [imageBlock(item)],
      );
      const block: Anthropic.ToolResultBlockParam = { type: 'tool_result', tool_use_id: part.toolCallId };
      if (content.length > 0) block.content = content;
      if (part.isError) block.is_error = true;
      blocks.push(block);
    }
    return blocks;
  }
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
        blocks.push(...textBlock(part));
        break;
      case 'image':
        blocks.push(imageBlock(part));
        break;
      case 'document':
        blocks.push(documentBlock(part));
        break;
      case 'audio':
        blocks.push({ type: 'text', text: leftOutNote(part, 'Claude') });
        break;
      case 'thinking':
        // Unsigned reasoning (from another provider, or cut off) cannot be sent back.
        if (part.redacted !== undefined) blocks.push({ type: 'redacted_thinking', data: part.redacted });
        else if (part.signature !== undefined && part.signature !== '') {
          blocks.push({ type: 'thinking', thinking: part.text, signature: part.signature });
        }
        break;
      case 'tool-call':
        blocks.push({ type: 'tool_use', id: part.id, name: part.name, input: part.arguments });
        break;
    }
  }
  return blocks;
}

// The API rejects empty text blocks.
function textBlock(part: TextPart): Anthropic.TextBlockParam[] {
  return part.text === '' ? [] : [{ type: 'text', text: part.text }];
}

function imageBlock(part: ImagePart): Anthropic.ImageBlockParam {
  if (part.data !== undefined) {
    const mediaType = part.mediaType as Anthropic.Base64ImageSource['media_type'];
    return { type: 'image', source: { type: 'base64', media_type: mediaType, data: part.data } };
  }
  return { type: 'image', source: { type: 'url', url: part.url ?? '' } };
}

/** A PDF as a base64 source, plain text as a text source; another type is left out with a note. */
function documentBlock(part: DocumentPart): Anthropic.DocumentBlockParam | Anthropic.TextBlockParam {
  const title = part.name === undefined ? {} : { title: part.name };
  if (part.mediaType === 'application/pdf') return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: part.data }, ...title };
  if (part.mediaType === 'text/plain') {
    return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: Buffer.from(part.data, 'base64').toString('utf8') }, ...title };
  }
  return { type: 'text', text: leftOutNote(part, 'Claude') };
}

function markLastBlock(message: MessageParam | undefined): void {
  if (message === undefined) return;
  for (let index = message.content.length - 1; index >= 0; index--) {
    const block = message.content[index];
    // Thinking blocks cannot carry cache_control.
    if (block === undefined || block.type === 'thinking' || block.type === 'redacted_thinking') continue;
    message.content[index] = { ...block, cache_control: ephemeral } as ContentBlock;
    return;
  }
}

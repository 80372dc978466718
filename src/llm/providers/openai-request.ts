/**
 * Neutral {@link ModelRequest} -> OpenAI Chat Completions request body. Pure and deterministic,
 * like the Anthropic one, so OpenAI's automatic prefix cache keeps hitting.
 */
import type OpenAI from 'openai';
import { getModelInfo } from '../catalog.ts';
import type { ImagePart, Message, ModelRequest, ToolCallPart, ToolChoice, ToolResultPart, UserContent } from '../types.ts';
import { geminiToolCalls } from './gemini-dialect.ts';
import { leftOutNote } from './left-out-part.ts';
import { withProviderOptions } from './provider-options.ts';

/** Whose Chat Completions a request is for: OpenAI (and compatible servers) or Google's Gemini endpoint. */
export type ChatDialect = 'openai' | 'gemini';

type MessageParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type UserContentPart = OpenAI.Chat.Completions.ChatCompletionContentPart;

/**
 * Builds the streaming request body.
 *
 * `reasoning_effort` is sent when the request sets it, unless the catalog knows the model does
 * not reason; a known reasoning model of OpenAI gets no `temperature`, `top_p` or `stop` (those
 * models reject them; Gemini's take them). A tool choice goes with tools only; a response format is `response_format:
 * json_schema`. For Gemini (`dialect`), tool calls carry their thought signatures and the output
 * limit is `max_tokens`. The metadata goes to OpenAI only (`safety_identifier`; the tags as
 * `metadata` when the provider options turn `store` on). Provider options (`providerOptions.openai`
 * or `.gemini`) are laid over the body last.
 */
export function toOpenAIRequest(request: ModelRequest, dialect: ChatDialect = 'openai'): OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming {
  const info = getModelInfo(request.model);
  const messages: MessageParam[] = [];
  if (request.systemPrompt !== '') messages.push({ role: 'system', content: request.systemPrompt });
  // Live state goes last: the prefix the provider caches automatically stays the same.
  messages.push(...toOpenAIMessages(request.ephemeral ? [...request.messages, ...request.ephemeral] : request.messages, dialect));

  const body: OpenAI.Chat.Completions.ChatCompletionCreateParamsStreaming = {
    model: request.model,
    messages,
    stream: true,
    stream_options: { include_usage: true },
  };
  if (request.tools !== undefined && request.tools.length > 0) {
    body.tools = request.tools.map((tool) => ({
      type: 'function',
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    }));
    // The API refuses a tool choice without tools.
    if (request.toolChoice !== undefined) body.tool_choice = toOpenAIToolChoice(request.toolChoice);
  }
  if (request.responseFormat !== undefined) {
    const { name, description, schema, strict } = request.responseFormat;
    body.response_format = {
      type: 'json_schema',
      json_schema: { name, ...(description !== undefined && { description }), schema, strict: strict ?? false },
    };
  }
  if (request.maxTokens !== undefined) {
    if (dialect === 'gemini') body.max_tokens = request.maxTokens;
    else body.max_completion_tokens = request.maxTokens;
  }
  if (request.reasoningEffort !== undefined && info?.reasoning !== false) body.reasoning_effort = request.reasoningEffort;
  // OpenAI's known reasoning models refuse the sampling parameters and stop sequences; Gemini's take them.
  const samples = dialect === 'gemini' || info?.reasoning !== true;
  if (request.temperature !== undefined && samples) body.temperature = request.temperature;
  if (request.topP !== undefined && samples) body.top_p = request.topP;
  if (request.stopSequences !== undefined && request.stopSequences.length > 0 && samples) body.stop = request.stopSequences;
  const options = request.providerOptions?.[dialect];
  // Gemini's endpoint refuses fields it does not know; OpenAI takes tags only with storage on.
  if (dialect === 'openai' && request.metadata?.userId !== undefined) body.safety_identifier = request.metadata.userId;
  if (dialect === 'openai' && request.metadata?.tags !== undefined && options?.store === true) body.metadata = request.metadata.tags;
  return withProviderOptions(body, request, dialect, ownedFields);
}

/** Body fields provider options may not replace. */
const ownedFields = ['model', 'messages', 'tools', 'stream', 'stream_options'] as const;

function toOpenAIToolChoice(choice: ToolChoice): OpenAI.Chat.Completions.ChatCompletionToolChoiceOption {
  return typeof choice === 'object' ? { type: 'function', function: { name: choice.name } } : choice;
}

/**
 * Converts the conversation. Reasoning parts are dropped (Chat Completions cannot take them
 * back). Each tool result becomes a `tool` message of text; images a tool returned follow in
 * one user message after the run of tool messages, since nothing may come between an assistant
 * message and the results of its tool calls. Tool calls go to Gemini with their thought signatures.
 */
export function toOpenAIMessages(messages: Message[], dialect: ChatDialect = 'openai'): MessageParam[] {
  const result: MessageParam[] = [];
  let pendingImages: UserContentPart[] = [];
  const flushImages = () => {
    if (pendingImages.length === 0) return;
    result.push({ role: 'user', content: pendingImages });
    pendingImages = [];
  };
  for (const message of messages) {
    if (message.role !== 'tool') flushImages();
    switch (message.role) {
      case 'user': {
        const parts = message.content.map((part) => userPart(part, dialect));
        if (parts.length === 0) break;
        const [only] = parts;
        result.push({ role: 'user', content: parts.length === 1 && only?.type === 'text' ? only.text : parts });
        break;
      }
      case 'assistant': {
        let text = '';
        const toolCalls: OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall[] = [];
        const callParts: ToolCallPart[] = [];
        for (const part of message.content) {
          if (part.type === 'text') text += part.text;
          else if (part.type === 'tool-call') {
            callParts.push(part);
            toolCalls.push({
              id: part.id,
              type: 'function',
              function: { name: part.name, arguments: JSON.stringify(part.arguments) },
            });
          }
        }
        if (text === '' && toolCalls.length === 0) break;
        const converted: OpenAI.Chat.Completions.ChatCompletionAssistantMessageParam = {
          role: 'assistant',
          content: text === '' ? null : text,
        };
        if (toolCalls.length > 0) converted.tool_calls = dialect === 'gemini' ? geminiToolCalls(toolCalls, callParts) : toolCalls;
        result.push(converted);
        break;
      }
      case 'tool': {
        for (const part of message.content) {
          result.push({ role: 'tool', tool_call_id: part.toolCallId, content: toolResultText(part) });
          const images = part.content.filter((item): item is ImagePart => item.type === 'image');
          if (images.length > 0) {
            pendingImages.push({ type: 'text', text: `Image(s) returned by tool ${part.toolName} (call ${part.toolCallId}):` });
            pendingImages.push(...images.map(imagePart));
          }
        }
        break;
      }
    }
  }
  flushImages();
  return result;
}

// Chat Completions has no error flag on tool results, so an error says so in its text.
function toolResultText(part: ToolResultPart): string {
  let text = '';
  for (const item of part.content) if (item.type === 'text') text += item.text;
  if (text === '' && part.content.some((item) => item.type === 'image')) text = '(image attached below)';
  return part.isError ? `Error: ${text}` : text;
}

/**
 * One part of a person's message. Recordings go as `input_audio` (WAV and MP3, the formats the
 * API takes); PDFs as `file` parts, to OpenAI only (Google's endpoint takes no files). Anything
 * else is a note saying it was left out.
 */
function userPart(part: UserContent, dialect: ChatDialect): UserContentPart {
  const provider = dialect === 'gemini' ? 'Gemini' : 'this model';
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return imagePart(part);
    case 'audio': {
      const format = audioFormats[part.mediaType];
      return format ? { type: 'input_audio', input_audio: { data: part.data, format } } : { type: 'text', text: leftOutNote(part, provider) };
    }
    case 'document':
      if (dialect === 'openai' && part.mediaType === 'application/pdf') {
        return { type: 'file', file: { file_data: `data:application/pdf;base64,${part.data}`, ...(part.name !== undefined && { filename: part.name }) } };
      }
      return { type: 'text', text: leftOutNote(part, provider) };
  }
}

/** Media types of recordings the API takes, and its name for each. */
const audioFormats: Readonly<Record<string, 'wav' | 'mp3'>> = { 'audio/wav': 'wav', 'audio/x-wav': 'wav', 'audio/wave': 'wav', 'audio/mpeg': 'mp3', 'audio/mp3': 'mp3' };

function imagePart(part: ImagePart): OpenAI.Chat.Completions.ChatCompletionContentPartImage {
  const url = part.data !== undefined ? `data:${part.mediaType};base64,${part.data}` : (part.url ?? '');
  return { type: 'image_url', image_url: { url } };
}

/**
 * Provider-neutral model types. Everything above `src/llm/providers/` speaks only these;
 * each provider converts at its edge. Messages are plain JSON values so they can be persisted
 * in the session tree and compared byte for byte.
 */
import type { ProviderError } from '../core/errors.ts';
import type { TaskSlot } from '../core/task-slot.ts';

/** Plain text. */
export interface TextPart {
  type: 'text';
  text: string;
}

/** An image, inline (base64) or by URL. */
export interface ImagePart {
  type: 'image';
  /** Base64 data without the `data:` prefix. */
  data?: string;
  url?: string;
  /** e.g. `image/png`. */
  mediaType: string;
}

/**
 * A recording, inline. OpenAI takes `audio/wav` and `audio/mpeg` (as `input_audio`), Gemini the
 * same; Anthropic takes no audio. Where a provider does not take it, the model gets a line saying
 * a recording was left out (speech is transcribed into text before it gets here, see `src/media/`).
 */
export interface AudioPart {
  type: 'audio';
  /** Base64 data without the `data:` prefix. */
  data: string;
  /** e.g. `audio/wav`. */
  mediaType: string;
}

/**
 * A document, inline: a PDF (`application/pdf`) or plain text (`text/plain`). Anthropic takes
 * both as `document` blocks, OpenAI PDFs as `file` parts; Gemini's endpoint takes none. Where a
 * provider does not take it, the model gets a line saying the document was left out.
 */
export interface DocumentPart {
  type: 'document';
  /** Base64 data without the `data:` prefix. */
  data: string;
  mediaType: string;
  /** The file's name, shown to the model (Anthropic `title`, OpenAI `filename`). */
  name?: string;
}

/** Model reasoning. `signature` is the provider's opaque token, sent back unchanged. */
export interface ThinkingPart {
  type: 'thinking';
  text: string;
  signature?: string;
  /** Provider-encrypted reasoning the model could not show (Anthropic `redacted_thinking`). */
  redacted?: string;
}

/** A tool invocation requested by the model. */
export interface ToolCallPart {
  type: 'tool-call';
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  /**
   * The provider's opaque token for this call (Gemini's thought signature), sent back unchanged
   * to the provider that made it; other providers never see it.
   */
  signature?: string;
}

/** Content a tool result may carry. */
export type ToolResultContent = TextPart | ImagePart;

/** The result of one tool call, answering the tool call with the same `toolCallId`. */
export interface ToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  toolName: string;
  content: ToolResultContent[];
  isError: boolean;
}

/** What a person's message may hold. */
export type UserContent = TextPart | ImagePart | AudioPart | DocumentPart;

/** A message from a person (or a system-generated user turn such as a scheduled prompt). */
export interface UserMessage {
  role: 'user';
  content: UserContent[];
  /** Milliseconds since the epoch. */
  timestamp?: number;
}

/** What the model answered. */
export interface AssistantMessage {
  role: 'assistant';
  content: (TextPart | ThinkingPart | ToolCallPart)[];
  /** Model id that produced it. */
  model?: string;
  provider?: string;
  usage?: Usage;
  stopReason?: StopReason;
  timestamp?: number;
}

/** Results of tool calls, one message per result. */
export interface ToolResultMessage {
  role: 'tool';
  content: [ToolResultPart];
  timestamp?: number;
}

/** Any message of a conversation. The system prompt is separate (see {@link ModelRequest}). */
export type Message = UserMessage | AssistantMessage | ToolResultMessage;

/** Why the model stopped. */
export type StopReason = 'stop' | 'tool-calls' | 'length' | 'content-filter' | 'error' | 'aborted' | 'other';

/** Token usage of one model call. `input` excludes cached tokens (read and write are counted apart). */
export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Reasoning tokens, when the provider reports them (a part of `output`). */
  reasoning?: number;
}

/** A tool as the model sees it. */
export interface ToolDefinition {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

/**
 * How hard a reasoning model should think. Unset means no reasoning asked for: Anthropic then
 * thinks not at all, OpenAI reasoning models use their own default.
 */
export type ReasoningEffort = 'low' | 'medium' | 'high';

/** The reasoning efforts, for parsing settings and commands. */
export const reasoningEfforts: readonly ReasoningEffort[] = ['low', 'medium', 'high'];

/**
 * Whether, and which, tool the model must call: `auto` (it decides; the default), `none` (no tool
 * call), `required` (at least one of the tools), or the tool named. Sent only with tools.
 */
export type ToolChoice = 'auto' | 'none' | 'required' | { name: string };

/**
 * Asks for the answer as one JSON object of a schema instead of free text; the final message's
 * text is then that JSON. OpenAI sends it as `response_format` (json_schema); Anthropic as a tool
 * of this name the model is made to call (see `src/llm/README.md`). Use `generateObject` rather
 * than setting it by hand: it validates the reply.
 */
export interface ResponseFormat {
  type: 'json_schema';
  /** `a-z`, `A-Z`, `0-9`, `_` and `-`, at most 64 characters; no tool of the request may have it. */
  name: string;
  description?: string;
  /** JSON Schema of the object; its root must be `type: 'object'`. */
  schema: Record<string, unknown>;
  /** OpenAI's strict structured outputs (the schema must fit its subset). Default false. */
  strict?: boolean;
}

/**
 * Who a call is for, as the providers take it. Anthropic takes `userId` alone; OpenAI both (tags
 * only with `store`, see {@link ModelRequest.providerOptions}); Gemini neither.
 */
export interface RequestMetadata {
  /**
   * An opaque id of the person the call serves (a hash, never a name or an address), which the
   * provider may use against abuse: Anthropic `metadata.user_id`, OpenAI `safety_identifier`.
   */
  userId?: string;
  /**
   * Key-value tags of the call: OpenAI `metadata` (at most 16; keys up to 64 characters, values
   * up to 512), sent only when `providerOptions.openai.store` is true, which OpenAI requires.
   */
  tags?: Record<string, string>;
}

/** Providers that take {@link ModelRequest.providerOptions}. */
export type ProviderOptionsName = 'anthropic' | 'openai' | 'gemini';

/**
 * Fields added to the request body as the named provider's API spells them
 * (`{ openai: { service_tier: 'flex', store: true } }`), for what the neutral request has no word
 * for. Each provider reads its own entry only. They cannot replace what the conversion owns (the
 * model, the messages, the system prompt, the tools, streaming): such a key fails the call.
 */
export type ProviderOptions = Partial<Record<ProviderOptionsName, Record<string, unknown>>>;

/** One model call. */
export interface ModelRequest {
  /** Provider-native model id (already resolved from aliases). */
  model: string;
  systemPrompt: string;
  messages: Message[];
  /**
   * Messages for this call alone (the live state of a browser), sent after `messages` and after
   * the last prompt-cache breakpoint, so the cached prefix stays the same from call to call.
   */
  ephemeral?: Message[];
  tools?: ToolDefinition[];
  /** Default: the model decides (`auto`). */
  toolChoice?: ToolChoice;
  /** A JSON object of a schema as the answer (see {@link ResponseFormat}). */
  responseFormat?: ResponseFormat;
  maxTokens?: number;
  /** Sampling temperature. Not sent to Anthropic (its API has no sampling parameters) nor to OpenAI's known reasoning models. */
  temperature?: number;
  /** Nucleus sampling: OpenAI and Gemini `top_p`. Not sent where `temperature` is not. */
  topP?: number;
  /**
   * Text that ends the answer where the model writes it (not included): Anthropic
   * `stop_sequences`, OpenAI and Gemini `stop` (at most 4); not sent to known reasoning models of
   * OpenAI, which refuse it.
   */
  stopSequences?: string[];
  /** Who the call is for (see {@link RequestMetadata}). */
  metadata?: RequestMetadata;
  /** Provider-specific body fields (see {@link ProviderOptions}). */
  providerOptions?: ProviderOptions;
  /**
   * Extended thinking / reasoning effort. Not sent to a model the catalog says cannot reason; on
   * Anthropic not with a `toolChoice` (or `responseFormat`) that forces a tool call, which the API
   * refuses together with thinking.
   */
  reasoningEffort?: ReasoningEffort;
  signal?: AbortSignal;
  /**
   * The slot of the queued task making the call (see `core/task-slot.ts`): the call steps out of
   * it while it waits on the provider. Unset: the call holds whatever its caller holds.
   */
  slot?: TaskSlot;
}

/** The settings of a request a caller may fix for all its calls (an agent's, a profile's). */
export type RequestOptions = Pick<ModelRequest, 'temperature' | 'topP' | 'stopSequences' | 'metadata' | 'providerOptions'>;

/**
 * Events of one streamed model call, named noun-then-verb.
 *
 * Contract: once `stream()` has returned an iterator, failures are reported as an `error` event
 * (the last event), never thrown, and the final message is always delivered by `message-end` or
 * `error`.
 */
export type StreamEvent =
  | { type: 'message-start'; model: string }
  | { type: 'text-delta'; text: string }
  | { type: 'thinking-delta'; text: string }
  | { type: 'tool-call-start'; id: string; name: string }
  | { type: 'tool-call-delta'; id: string; argumentsDelta: string }
  | { type: 'tool-call-end'; call: ToolCallPart }
  | { type: 'message-end'; message: AssistantMessage }
  | { type: 'error'; error: ProviderError; partial?: AssistantMessage };

/** A model provider: one function that streams a model call. */
export interface Provider {
  /** `anthropic`, `openai`, ... */
  readonly name: string;
  stream(request: ModelRequest): AsyncIterable<StreamEvent>;
}

/** An empty usage record. */
export function emptyUsage(): Usage {
  return { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 };
}

/** Adds two usage records. */
export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    reasoning: (a.reasoning ?? 0) + (b.reasoning ?? 0) || undefined,
  };
}

/** The concatenated text parts of a message. */
export function messageText(message: Message): string {
  let text = '';
  for (const part of message.content) if (part.type === 'text') text += part.text;
  return text;
}

/**
 * How the simulated prompt cache (`fake-prompt-cache.ts`) sees a request: the parts of its
 * prompt in the order the provider caches them, each with an estimated token count.
 *
 * Token rule: a part costs `ceil(L / 4)` tokens, where `L` is the length (UTF-16 code units) of
 * its canonical JSON: `JSON.stringify` of the part as received (key order kept, no whitespace)
 * without its own top-level `cache_control` key. Anthropic parts are the tool definitions, the
 * system blocks (a string system prompt is one `{"type":"text","text":...}` block) and the
 * content blocks of each message (string content likewise one text block). OpenAI parts are
 * the tool definitions and then the messages, one part per message.
 */

/** Lifetime of an Anthropic cache entry without `ttl`, and OpenAI's shortest retention. */
export const fiveMinutesMs = 5 * 60_000;
const oneHourMs = 60 * 60_000;

/** One cacheable unit of a prompt. */
export interface PromptPart {
  /** Where the part sits (`tool`, `system`, `message 3 user`); part of its identity. */
  label: string;
  /** Canonical JSON; its exact characters are the part's identity. */
  text: string;
  /** Estimated tokens: `ceil(text.length / 4)`. */
  tokens: number;
  /** Lifetime of the cache entry an Anthropic `cache_control` breakpoint on this part writes. */
  breakpointTtlMs?: number;
}

/** An Anthropic prompt: tools, then system, then messages. */
export interface AnthropicPrompt {
  model: string;
  parts: PromptPart[];
  /** Index of the first message part. */
  messagesStart: number;
  /** `tool_choice` and `thinking`: changing them invalidates the cached messages only. */
  messageSettings: string;
}

/** An OpenAI prompt: tools, then messages. */
export interface OpenAIPrompt {
  model: string;
  parts: PromptPart[];
}

/** Characters of canonical JSON per estimated token. */
export const charactersPerToken = 4;

/** Estimated tokens of a canonical text (one per 4 characters, rounded up). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / charactersPerToken);
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

function part(label: string, value: unknown): PromptPart {
  let breakpointTtlMs: number | undefined;
  let content = value;
  if (isObject(value) && 'cache_control' in value) {
    const { cache_control: control, ...rest } = value;
    content = rest;
    if (isObject(control)) breakpointTtlMs = control.ttl === '1h' ? oneHourMs : fiveMinutesMs;
  }
  const text = JSON.stringify(content) ?? 'null';
  const result: PromptPart = { label, text, tokens: estimateTokens(text) };
  if (breakpointTtlMs !== undefined) result.breakpointTtlMs = breakpointTtlMs;
  return result;
}

function modelOf(body: Json): string {
  return typeof body.model === 'string' ? body.model : '';
}

function textBlocks(content: unknown): unknown[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : asArray(content);
}

/** The parts of an Anthropic Messages API request body. */
export function anthropicPrompt(body: Json): AnthropicPrompt {
  const parts = asArray(body.tools).map((tool) => part('tool', tool));
  parts.push(...textBlocks(body.system).map((block) => part('system', block)));
  const messagesStart = parts.length;
  for (const [index, message] of asArray(body.messages).entries()) {
    const role = isObject(message) ? String(message.role) : '';
    const content = isObject(message) ? message.content : undefined;
    parts.push(...textBlocks(content).map((block) => part(`message ${index} ${role}`, block)));
  }
  const messageSettings = JSON.stringify({ tool_choice: body.tool_choice, thinking: body.thinking });
  return { model: modelOf(body), parts, messagesStart, messageSettings };
}

/** The parts of an OpenAI Chat Completions request body. */
export function openaiPrompt(body: Json): OpenAIPrompt {
  const parts = [
    ...asArray(body.tools).map((tool) => part('tool', tool)),
    ...asArray(body.messages).map((message) => part('message', message)),
  ];
  return { model: modelOf(body), parts };
}

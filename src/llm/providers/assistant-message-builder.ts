import { ProviderError } from '../../core/errors.ts';
import { redactSecrets } from '../redact-secrets.ts';
import {
  emptyUsage,
  type AssistantMessage,
  type StopReason,
  type TextPart,
  type ThinkingPart,
  type ToolCallPart,
  type Usage,
} from '../types.ts';

type Slot =
  | { kind: 'text'; part: TextPart }
  | { kind: 'thinking'; part: ThinkingPart }
  | { kind: 'tool-call'; id: string; name: string; argumentsText: string; signature?: string; part: ToolCallPart | undefined };

type ToolCallSlot = Extract<Slot, { kind: 'tool-call' }>;

/** A key identifying a content block within one stream (Anthropic block index, OpenAI tool index). */
export type BlockKey = string | number;

/**
 * Accumulates one streamed assistant message, keeping parts in stream order, so a provider can
 * hand out the finished message, or the partial one when the stream fails or is aborted.
 */
export class AssistantMessageBuilder {
  readonly provider: string;
  readonly model: string;
  usage: Usage = emptyUsage();
  stopReason: StopReason = 'other';
  /** Set by the provider once the stream reported its natural end. */
  complete = false;
  private readonly slots: Slot[] = [];
  private readonly keyed = new Map<BlockKey, Slot>();
  private readonly timestamp: number;

  constructor(provider: string, model: string, timestamp: number = Date.now()) {
    this.provider = provider;
    this.model = model;
    this.timestamp = timestamp;
  }

  /** Appends text to the block `key`, or without a key to the last part when it is text. */
  appendText(text: string, key?: BlockKey): void {
    this.slotFor('text', key).part.text += text;
  }

  /** Appends reasoning text, like {@link appendText}. */
  appendThinking(text: string, key?: BlockKey): void {
    this.slotFor('thinking', key).part.text += text;
  }

  /** Sets the signature of the thinking block `key`. */
  setThinkingSignature(signature: string, key?: BlockKey): void {
    const part = this.slotFor('thinking', key).part;
    part.signature = (part.signature ?? '') + signature;
  }

  /** Records a block of provider-encrypted reasoning. */
  addRedactedThinking(data: string, key?: BlockKey): void {
    this.slotFor('thinking', key).part.redacted = data;
  }

  /** Opens a tool call. */
  startToolCall(key: BlockKey, id: string, name: string): void {
    const slot: ToolCallSlot = { kind: 'tool-call', id, name, argumentsText: '', part: undefined };
    this.slots.push(slot);
    this.keyed.set(key, slot);
  }

  /** The open tool call of `key`, if any. */
  toolCall(key: BlockKey): { id: string; name: string } | undefined {
    const slot = this.keyed.get(key);
    return slot?.kind === 'tool-call' && slot.part === undefined ? slot : undefined;
  }

  /** Appends raw JSON to the arguments of the tool call `key`. */
  appendToolArguments(key: BlockKey, json: string): void {
    const slot = this.keyed.get(key);
    if (slot?.kind === 'tool-call') slot.argumentsText += json;
  }

  /** Sets the provider's opaque token of the open tool call `key` (Gemini's thought signature). */
  setToolCallSignature(key: BlockKey, signature: string): void {
    const slot = this.keyed.get(key);
    if (slot?.kind === 'tool-call' && slot.part === undefined) slot.signature = signature;
  }

  /** Keys of tool calls not yet ended, in the order they were opened. */
  openToolCallKeys(): BlockKey[] {
    const open: BlockKey[] = [];
    for (const [key, slot] of this.keyed) if (slot.kind === 'tool-call' && slot.part === undefined) open.push(key);
    return open;
  }

  /**
   * Closes the tool call `key` and parses its arguments.
   *
   * @throws ProviderError (kind `UNKNOWN`, so retryable) when the arguments are not a JSON object:
   *   a fresh sample usually repairs it, while running the tool with guessed arguments could do
   *   something the model never asked for.
   */
  endToolCall(key: BlockKey): ToolCallPart | undefined {
    const slot = this.keyed.get(key);
    if (slot?.kind !== 'tool-call' || slot.part !== undefined) return undefined;
    const args = parseArguments(slot.argumentsText);
    if (args === undefined) {
      const sample = redactSecrets(slot.argumentsText.slice(0, 200));
      throw new ProviderError(
        `${this.provider}: model returned invalid JSON arguments for tool ${slot.name} (call ${slot.id}): ${sample}`,
        { provider: this.provider, kind: 'UNKNOWN' },
      );
    }
    slot.part = { type: 'tool-call', id: slot.id, name: slot.name, arguments: args, ...(slot.signature !== undefined && { signature: slot.signature }) };
    return slot.part;
  }

  /**
   * The message so far. Unfinished tool calls and empty text are left out; text and reasoning
   * received so far are kept.
   */
  message(stopReason: StopReason = this.stopReason): AssistantMessage {
    const content: AssistantMessage['content'] = [];
    for (const slot of this.slots) {
      if (slot.kind === 'tool-call') {
        if (slot.part !== undefined) content.push(slot.part);
      } else if (slot.kind === 'text') {
        if (slot.part.text !== '') content.push({ ...slot.part });
      } else {
        content.push({ ...slot.part });
      }
    }
    return {
      role: 'assistant',
      content,
      model: this.model,
      provider: this.provider,
      usage: { ...this.usage },
      stopReason,
      timestamp: this.timestamp,
    };
  }

  private slotFor<K extends 'text' | 'thinking'>(kind: K, key: BlockKey | undefined): Extract<Slot, { kind: K }> {
    type Wanted = Extract<Slot, { kind: K }>;
    const existing = key === undefined ? this.slots.at(-1) : this.keyed.get(key);
    if (existing?.kind === kind) return existing as Wanted;
    const slot = (kind === 'text' ? { kind, part: { type: 'text', text: '' } } : { kind, part: { type: 'thinking', text: '' } }) as Wanted;
    this.slots.push(slot);
    if (key !== undefined) this.keyed.set(key, slot);
    return slot;
  }
}

function parseArguments(text: string): Record<string, unknown> | undefined {
  if (text.trim() === '') return {};
  try {
    const value: unknown = JSON.parse(text);
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * Compaction: when a session's context nears the model's window, older entries are summarized by
 * the model and replaced (in the rebuilt context, not on disk) by that summary. The cut never
 * falls between a tool call and its result, and a failed summary call changes nothing.
 */
import { LLMError } from '../core/errors.ts';
import type { TaskSlot } from '../core/task-slot.ts';
import type { Message, Provider } from '../llm/types.ts';
import { messageText } from '../llm/types.ts';
import type { SessionTree } from '../session/session-tree.ts';
import type { CompactionEntry, SessionEntry } from '../session/types.ts';
import type { AgentEvent } from './agent-events.ts';

/** When and how much to compact. */
export interface CompactionSettings {
  enabled: boolean;
  /** Compact when context tokens exceed `contextWindow - reserveTokens`. */
  reserveTokens: number;
  /** Roughly how many tokens of the most recent conversation stay verbatim. */
  keepRecentTokens: number;
}

/** Defaults: leave room for one long answer, keep the last ~20k tokens verbatim. */
export const defaultCompactionSettings: CompactionSettings = { enabled: true, reserveTokens: 16_384, keepRecentTokens: 20_000 };

/** Whether the context is large enough to compact. */
export function shouldCompact(contextTokens: number, contextWindow: number, settings: CompactionSettings): boolean {
  return settings.enabled && contextTokens > contextWindow - settings.reserveTokens;
}

/** A rough token estimate (4 characters a token), for when the provider has not told us. */
export function estimateTokens(message: Message): number {
  let chars = 0;
  for (const part of message.content) {
    switch (part.type) {
      case 'text':
      case 'thinking':
        chars += part.text.length;
        break;
      case 'tool-call':
        chars += part.name.length + JSON.stringify(part.arguments).length;
        break;
      case 'tool-result':
        for (const inner of part.content) chars += inner.type === 'text' ? inner.text.length : 4_800;
        break;
      case 'image':
        chars += 4_800; // about 1,200 tokens for a typical image
        break;
      case 'audio':
      case 'document':
        chars += part.data.length; // a token per 3 bytes, about what PDFs and recordings cost
        break;
    }
  }
  return Math.ceil(chars / 4);
}

/** What a compaction would summarize and keep. */
export interface CutPlan {
  firstKeptEntryId: string;
  /** Messages to fold into the summary, oldest first. */
  toSummarize: Message[];
  /** The summary of an earlier compaction on this branch, carried into the new one. */
  previousSummary?: string;
}

/**
 * Chooses where to cut a branch (root-to-leaf entries): keep about `keepRecentTokens` of the most
 * recent messages, starting at a user or assistant message so tool calls keep their results.
 * Returns undefined when there is nothing to summarize.
 */
export function planCut(branch: readonly SessionEntry[], keepRecentTokens: number): CutPlan | undefined {
  let start = 0;
  let previousSummary: string | undefined;
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!;
    if (entry.type === 'compaction') {
      previousSummary = entry.summary;
      const kept = branch.findIndex((candidate) => candidate.id === entry.firstKeptEntryId);
      start = kept === -1 ? i + 1 : kept;
      break;
    }
  }
  const isCut = (index: number) => {
    const entry = branch[index]!;
    return entry.type === 'message' && entry.message.role !== 'tool';
  };

  let boundary = branch.length;
  let tokens = 0;
  while (boundary > start && tokens < keepRecentTokens) {
    boundary--;
    const entry = branch[boundary]!;
    if (entry.type === 'message') tokens += estimateTokens(entry.message);
  }
  let cut = -1;
  if (tokens >= keepRecentTokens) {
    for (let i = Math.max(boundary, start + 1); i < branch.length; i++) {
      if (isCut(i)) {
        cut = i;
        break;
      }
    }
  }
  if (cut === -1) {
    // Too little history to keep the target verbatim: keep from the last turn boundary instead.
    for (let i = branch.length - 1; i > start; i--) {
      if (isCut(i)) {
        cut = i;
        break;
      }
    }
  }
  if (cut <= start) return undefined;
  const toSummarize: Message[] = [];
  for (let i = start; i < cut; i++) {
    const entry = branch[i]!;
    if (entry.type === 'message') toSummarize.push(entry.message);
  }
  if (toSummarize.length === 0) return undefined;
  return { firstKeptEntryId: branch[cut]!.id, toSummarize, previousSummary };
}

const summarySystemPrompt = [
  'You write the working memory of a long conversation between a person and an AI assistant.',
  'Summarize the conversation you are given so the assistant can continue it without the original.',
  'Keep: what the person wants and why, decisions made, facts learned about the people and their work,',
  'names, numbers, file paths, commands and their outcomes, promises made, and what is still open.',
  'Drop pleasantries and superseded details. Write compact Markdown with short sections. Do not invent.',
].join('\n');

/** Renders messages as a plain transcript for the summarizer (tool pairing does not matter there). */
export function transcript(messages: readonly Message[], maxToolChars = 2_000): string {
  const lines: string[] = [];
  for (const message of messages) {
    if (message.role === 'user') lines.push(`[Person]: ${messageText(message)}`);
    else if (message.role === 'assistant') {
      for (const part of message.content) {
        if (part.type === 'text' && part.text) lines.push(`[Assistant]: ${part.text}`);
        if (part.type === 'tool-call') lines.push(`[Assistant called ${part.name}]: ${JSON.stringify(part.arguments)}`);
      }
    } else {
      const result = message.content[0];
      let text = result.content.map((part) => (part.type === 'text' ? part.text : '[image]')).join('\n');
      if (text.length > maxToolChars) text = `${text.slice(0, maxToolChars)}\n[... ${text.length - maxToolChars} more characters]`;
      lines.push(`[${result.toolName} ${result.isError ? 'error' : 'result'}]: ${text}`);
    }
  }
  return lines.join('\n\n');
}

/**
 * Asks the model for a summary of `plan.toSummarize`. Throws the provider's error (or an
 * {@link LLMError} for an empty answer); the caller then leaves the session untouched.
 */
export async function summarize(
  provider: Provider,
  model: string,
  plan: CutPlan,
  options: { instructions?: string; signal?: AbortSignal; slot?: TaskSlot; maxTokens?: number } = {},
): Promise<string> {
  const parts = [];
  if (plan.previousSummary) parts.push(`An earlier summary of the conversation:\n<summary>\n${plan.previousSummary}\n</summary>`);
  parts.push(`The conversation since then:\n<conversation>\n${transcript(plan.toSummarize)}\n</conversation>`);
  parts.push(`Write the new summary${plan.previousSummary ? ', merging the earlier one' : ''}.`);
  if (options.instructions) parts.push(`Additional instructions: ${options.instructions}`);
  const stream = provider.stream({
    model,
    systemPrompt: summarySystemPrompt,
    messages: [{ role: 'user', content: [{ type: 'text', text: parts.join('\n\n') }] }],
    maxTokens: options.maxTokens ?? 4_096,
    signal: options.signal,
    slot: options.slot,
  });
  for await (const event of stream) {
    if (event.type === 'error') throw event.error;
    if (event.type === 'message-end') {
      const text = messageText(event.message).trim();
      if (!text) throw new LLMError('The summary call returned no text');
      return text;
    }
  }
  throw new LLMError('The summary stream ended without a message');
}

/**
 * Compacts the session's active branch: plans the cut, lets extensions cancel or give the summary
 * (`session_before_compact`), runs `beforeSummary` with the plan (the memory flush), else asks the
 * model, appends the compaction entry and announces it (`session_compact`). Resolves to the entry,
 * or undefined when there was nothing to cut or an extension cancelled. `tokensBefore` is the
 * measured context size, when known.
 */
export async function compactSession(options: {
  tree: SessionTree;
  settings: CompactionSettings;
  reason: 'threshold' | 'overflow' | 'manual';
  instructions?: string;
  tokensBefore: number | undefined;
  provider: Provider;
  model: string;
  signal: AbortSignal;
  /** The queued task's slot, which the summary call steps out of while it waits. */
  slot?: TaskSlot;
  emit(event: AgentEvent): Promise<unknown[]>;
  /** Called once the entry is written, before `session_compact` goes out. */
  compacted(): void;
  /**
   * Called with the plan once the compaction will happen (not cancelled), before the summary.
   * Best effort: what it throws is ignored.
   */
  beforeSummary?(plan: CutPlan): Promise<unknown>;
}): Promise<CompactionEntry | undefined> {
  const { tree, reason } = options;
  const plan = planCut(tree.branch(), options.settings.keepRecentTokens);
  if (!plan) return undefined;
  const tokensBefore = options.tokensBefore ?? tree.buildContext().messages.reduce((sum, message) => sum + estimateTokens(message), 0);
  let summary: string | undefined;
  let fromExtension = false;
  for (const result of await options.emit({ type: 'session_before_compact', reason, tokensBefore })) {
    const answer = typeof result === 'object' && result !== null ? (result as { cancel?: unknown; summary?: unknown }) : undefined;
    if (answer?.cancel === true) return undefined;
    if (typeof answer?.summary === 'string') {
      summary = answer.summary;
      fromExtension = true;
    }
  }
  try {
    await options.beforeSummary?.(plan);
  } catch {
    // The flush is a bonus: the compaction goes on as it would without it.
  }
  summary ??= await summarize(options.provider, options.model, plan, { instructions: options.instructions, signal: options.signal, slot: options.slot });
  const entry = (await tree.append({ type: 'compaction', summary, firstKeptEntryId: plan.firstKeptEntryId, tokensBefore })) as CompactionEntry;
  options.compacted();
  await options.emit({ type: 'session_compact', entry, fromExtension });
  return entry;
}

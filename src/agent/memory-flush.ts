/**
 * The memory flush: just before a compaction summarizes the older part of a conversation, an
 * ephemeral child (`spawnChild`, only `memory` may run) gets that part — the conversation up to the
 * cut, so its request repeats the parent's bytes and the provider serves them from its prompt
 * cache — and one chance to save what is durable in it with the `memory` tool. The summary keeps
 * the gist; the flush keeps the facts that should outlive the conversation.
 *
 * Rules:
 * - It runs only when the agent offers a `memory` tool (profile resources provide it) and the
 *   compaction has something to summarize; otherwise it is skipped without a word.
 * - It works under the seat of the conversation's last turn (`spawnChild`): in a conversation that
 *   is not an owner's seat, what it saves goes to that conversation's own memory, never to the
 *   profile's (the `memory` tool decides by the seat), and it has no tool that writes skills.
 * - Never twice for the same cut: a flush that ran leaves a marker on the branch (the reviewer's
 *   marker, so the background reviewer counts its turns afresh from there too), and a later cut
 *   that marker already covers is not flushed again (a failed summary, then `/compact` again).
 * - Bounded: a few tool rounds, a cap on output tokens per call and on tokens in all, one attempt
 *   (a failed model call is not retried: compaction is waiting). Its usage is charged as a memory
 *   review (`chargeReview`, `/status` "Memory reviews").
 * - It never throws: a failed or aborted flush is reported (`memory_flush`) and compaction goes on.
 * - After a context overflow the conversation up to the cut may itself be too long for one
 *   request, so the child gets only the oldest part of it that fits in half the model's usable
 *   window by the rough token estimate (the prefix, so the prompt cache still hits); the rest is
 *   summarized without a flush. Without a known context window it is skipped there.
 */
import { errorMessage } from '../core/errors.ts';
import type { TaskSlot } from '../core/task-slot.ts';
import type { Cost } from '../llm/cost.ts';
import { addCost, computeCost, emptyCost } from '../llm/cost.ts';
import type { Message, Usage } from '../llm/types.ts';
import { addUsage, emptyUsage } from '../llm/types.ts';
import type { SessionTree } from '../session/session-tree.ts';
import type { Agent } from './agent.ts';
import type { AgentEvent } from './agent-events.ts';
import { estimateTokens, type CutPlan } from './compaction.ts';
import { reviewMarker } from './reviewer.ts';

/** How much one flush may do. */
export interface MemoryFlushSettings {
  /** Tool rounds of the flush. Default 3. */
  maxToolRounds: number;
  /**
   * Tokens (input incl. cached, plus output) after which no further model call is made (the
   * tool calls of the call that crossed it still run). Default 400,000.
   */
  maxTokens: number;
  /** Output tokens per model call. Default 2,048. */
  maxOutputTokens: number;
}

/** Defaults (see each field). */
export const defaultMemoryFlushSettings: MemoryFlushSettings = { maxToolRounds: 3, maxTokens: 400_000, maxOutputTokens: 2_048 };

/** The tool the flush may run. */
const memoryTool = 'memory';

/** What the flush child is asked, appended after the part of the conversation about to be summarized. */
export const memoryFlushPrompt = [
  '[Memory flush before compaction — not a message from the person; they will not see your answer.]',
  'The conversation above is about to be replaced by a short summary. Before that happens, save with the memory tool',
  'anything durable in it that is not already in memory: decisions, preferences, and facts about the people and the',
  'project (target "memory" for the team and the work, "user" for the person you are talking with).',
  'Do not save small talk, task progress, secrets or passwords, or anything only true today. Keep each entry to one or',
  'two short sentences; prefer replacing an outdated entry over adding a near-duplicate. When nothing is worth keeping,',
  'save nothing. Reply with one short line saying what you saved, or nothing.',
].join('\n');

/** How one flush ended (also the `memory_flush` event). */
export interface MemoryFlushOutcome {
  /** `capped`: stopped at the token cap; `cancelled`: the compaction's signal aborted it. */
  status: 'done' | 'capped' | 'failed' | 'cancelled';
  /** Successful `memory` calls. */
  saved: number;
  /** How many of the messages to be summarized the child saw. */
  messages: number;
  /** How many messages the compaction summarizes. */
  toSummarize: number;
  usage: Usage;
  cost: Cost;
  /** The child's closing note. */
  text?: string;
  error?: string;
}

/** What one flush works with. */
export interface MemoryFlushRun {
  agent: Agent;
  /** The agent's session, as the compaction planned it. */
  tree: SessionTree;
  /** The compaction's cut plan (from `planCut`). */
  plan: CutPlan;
  reason: 'threshold' | 'overflow' | 'manual';
  /** The channel of the conversation's last turn, so the child's system prompt is the same bytes. */
  channel: string | undefined;
  /** The compaction's signal: aborting it aborts the flush. */
  signal: AbortSignal;
  /** The queued task's slot, which the flush's model calls step out of while they wait. */
  slot?: TaskSlot;
  /** The compaction's `reserveTokens` (the overflow budget leaves room for an answer). */
  reserveTokens: number;
  settings?: Partial<MemoryFlushSettings>;
  emit(event: AgentEvent): Promise<unknown>;
}

/**
 * Runs the flush for `run.plan` when it applies (see the rules above), emits `memory_flush` and
 * charges its usage. Resolves to the outcome, or undefined when skipped. Never throws.
 */
export async function flushMemory(run: MemoryFlushRun): Promise<MemoryFlushOutcome | undefined> {
  const { agent, tree, plan } = run;
  if (run.signal.aborted || plan.toSummarize.length === 0) return undefined;
  if (!agent.tools.some((tool) => tool.name === memoryTool)) return undefined;
  const branch = tree.branch();
  if (alreadyFlushed(branch, plan.firstKeptEntryId)) return undefined;
  const part = flushHistory(tree, plan, run.reason === 'overflow' ? overflowBudget(agent, run.reserveTokens) : Infinity);
  if (!part) return undefined;

  const settings = { ...defaultMemoryFlushSettings, ...run.settings };
  let usage = emptyUsage();
  let cost = emptyCost();
  let saved = 0;
  let capped = false;
  let retryError: string | undefined;
  let child: Agent | undefined;
  const stop = () => child?.abort();
  run.signal.addEventListener('abort', stop, { once: true });
  const finish = async (outcome: Omit<MemoryFlushOutcome, 'usage' | 'cost' | 'saved' | 'messages' | 'toSummarize'>): Promise<MemoryFlushOutcome> => {
    const full: MemoryFlushOutcome = { ...outcome, saved, messages: part.seen, toSummarize: plan.toSummarize.length, usage, cost };
    await settle(run, full);
    return full;
  };
  try {
    child = await agent.spawnChild({ tools: [memoryTool], history: part.history, maxToolRounds: settings.maxToolRounds, maxTokens: settings.maxOutputTokens, origin: 'flush' });
    // The tools the last turn offered (what the child sends) may leave `memory` out.
    if (!child.tools.some((tool) => tool.name === memoryTool)) return undefined;
    const flushing = child;
    flushing.subscribe((event) => {
      if (event.type === 'tool_execution_end' && event.call.name === memoryTool && !event.isError) saved++;
      if (event.type === 'model_usage') {
        usage = addUsage(usage, event.usage);
        cost = addCost(cost, event.cost);
      }
      // The cap is checked once a round's tools ran, so what the model asked to save is saved.
      const spent = usage.input + usage.cacheRead + usage.cacheWrite + usage.output;
      if (event.type === 'turn_end' && event.toolResults.length > 0 && spent > settings.maxTokens) {
        capped = true;
        flushing.abort();
      }
      // One attempt: compaction is waiting, and the flush is a bonus.
      if (event.type === 'retry_start') {
        retryError = event.error.message;
        flushing.abort();
      }
    });
    if (run.signal.aborted) return await finish({ status: 'cancelled' });
    const result = await flushing.invoke(memoryFlushPrompt, { channel: run.channel, slot: run.slot });
    if (run.signal.aborted) return await finish({ status: 'cancelled' });
    // Stopped before a retry: the failure is the outcome (not an answer, not a person's stop).
    if (retryError !== undefined) return await finish({ status: 'failed', error: retryError });
    return await finish({ status: capped ? 'capped' : result.aborted ? 'cancelled' : 'done', text: result.text.trim() || undefined });
  } catch (error) {
    if (run.signal.aborted) return await finish({ status: 'cancelled' });
    return await finish({ status: 'failed', error: retryError ?? errorMessage(error) });
  } finally {
    run.signal.removeEventListener('abort', stop);
    child?.dispose();
  }
}

/**
 * Whether a flush on this branch (since its last compaction) already covered everything up to
 * `firstKeptEntryId`.
 */
function alreadyFlushed(branch: ReturnType<SessionTree['branch']>, firstKeptEntryId: string): boolean {
  const cutIndex = branch.findIndex((entry) => entry.id === firstKeptEntryId);
  for (let i = branch.length - 1; i >= 0; i--) {
    const entry = branch[i]!;
    if (entry.type === 'compaction') return false;
    if (entry.type !== 'custom' || entry.customType !== reviewMarker) continue;
    const data = entry.data as { flush?: unknown; firstKeptEntryId?: unknown } | undefined;
    if (data?.flush !== true || typeof data.firstKeptEntryId !== 'string') continue;
    const flushedIndex = branch.findIndex((candidate) => candidate.id === data.firstKeptEntryId);
    if (flushedIndex !== -1 && flushedIndex >= cutIndex) return true;
  }
  return false;
}

/** Estimated tokens the flush's messages may take after an overflow (undefined: unknown window). */
function overflowBudget(agent: Agent, reserveTokens: number): number | undefined {
  const window = agent.options.modelInfo?.contextWindow;
  if (window === undefined) return undefined;
  // Half: the estimate is rough (4 characters a token), and the system prompt and tools ride along.
  return Math.floor((window - reserveTokens) / 2);
}

/**
 * The messages the child starts from: the context up to the cut (an earlier summary first), or
 * after an overflow the longest prefix within `budget` that ends before a person's or assistant's
 * message (a tool call keeps its results). Undefined when none of the messages to summarize fit.
 */
function flushHistory(tree: SessionTree, plan: CutPlan, budget: number | undefined): { history: Message[]; seen: number } | undefined {
  if (budget === undefined) return undefined;
  const context = tree.buildContext();
  let end = context.entryIds.indexOf(plan.firstKeptEntryId);
  let messages = context.messages;
  let ids = context.entryIds;
  if (end <= 0) {
    // Not where the plan says (should not happen): the plan's own messages.
    messages = plan.toSummarize;
    ids = plan.toSummarize.map(() => '');
    end = messages.length;
  }
  let best = 0;
  let tokens = 0;
  for (let i = 0; i <= end; i++) {
    if (i === end || messages[i]!.role !== 'tool') {
      if (tokens > budget) break;
      best = i;
    }
    if (i < end) tokens += estimateTokens(messages[i]!);
  }
  const seen = ids.slice(0, best).filter((id) => id !== null).length;
  if (seen === 0) return undefined;
  return { history: messages.slice(0, best), seen };
}

/** Reports the flush, charges it, marks the cut done and refreshes the prompt when memory changed. */
async function settle(run: MemoryFlushRun, outcome: MemoryFlushOutcome): Promise<void> {
  const { agent } = run;
  const { usage } = outcome;
  if (usage.input + usage.output + usage.cacheRead + usage.cacheWrite > 0) {
    agent.chargeReview(usage, outcome.cost.total > 0 ? outcome.cost : computeCost(usage, agent.options.modelInfo));
  }
  const ran = outcome.status === 'done' || outcome.status === 'capped' || outcome.saved > 0;
  try {
    // The reviewer counts person turns from its marker: a flush counts as a review.
    if (ran) await run.tree.append({ type: 'custom', customType: reviewMarker, data: { at: Date.now(), flush: true, firstKeptEntryId: run.plan.firstKeptEntryId, saved: outcome.saved } });
  } catch {
    // Without the marker the worst case is one more flush or review; compaction goes on.
  }
  // The new memory shows in the channel's prompt from the next turn (as after a review).
  if (outcome.saved > 0) agent.invalidatePromptCache(run.channel);
  try {
    await run.emit({ type: 'memory_flush', reason: run.reason, ...outcome });
  } catch {
    // Listeners observe; they cannot stop the compaction.
  }
}

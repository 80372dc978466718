/**
 * A turn's model/tool run, tried again after retryable failures. Each failed attempt is rewound
 * off the session's active branch before anything else; the wait doubles (a provider's
 * `retry-after` honoured); a context overflow compacts first. When it gives up, the person's
 * message is rewound too and the error thrown: the session is exactly as before the turn.
 *
 * A turn with a deadline gives up when the deadline passes (its signal aborts with a
 * `TurnTimeoutError`, thrown here), or at once when the wait before the next retry would end past
 * it: no retry starts that could not finish in time, and the person hears sooner.
 */
import { CancellationError, ProviderError, TurnTimeoutError } from '../core/errors.ts';
import type { Cost } from '../llm/cost.ts';
import { addCost, computeCost, emptyCost } from '../llm/cost.ts';
import type { ModelInfo } from '../llm/catalog.ts';
import type { Message, Usage } from '../llm/types.ts';
import { addUsage, emptyUsage } from '../llm/types.ts';
import type { SessionTree } from '../session/session-tree.ts';
import type { CompactionEntry } from '../session/types.ts';
import type { AgentEvent } from './agent-events.ts';
import type { EngineRunResult } from './engine.ts';
import type { RetrySettings } from './retry.ts';
import { retryDelay } from './retry.ts';
import { deadlineReason, type TurnDeadline } from './turn-deadline.ts';

/** What {@link runWithRetry} works with. */
export interface RetryLoop {
  tree: SessionTree;
  /** The turn's messages, the person's last. */
  messages: Message[];
  /** The person's message in the session: failed attempts are rewound to it. */
  userEntryId: string;
  /** The leaf before the person's message: where giving up rewinds to. */
  leafBeforeUser: string | null;
  /** Aborted by the person's stop, or by the turn's deadline (reason `TurnTimeoutError`). */
  signal: AbortSignal;
  /** The turn's deadline, when it has one. */
  deadline?: TurnDeadline;
  settings: RetrySettings;
  modelInfo?: ModelInfo;
  /** One attempt: a fresh engine run over `messages`. */
  attempt(messages: Message[]): Promise<EngineRunResult>;
  emit(event: AgentEvent): Promise<unknown>;
  /** Compacts the session so the same request can fit (a context overflow). */
  compact(): Promise<CompactionEntry | undefined>;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

/** Runs attempts until one succeeds, the turn is aborted, or a failure is final (thrown). */
export async function runWithRetry(loop: RetryLoop): Promise<{ messages: Message[]; usage: Usage; cost: Cost; aborted: boolean; contextTokens: number }> {
  const { tree, settings } = loop;
  let messages = loop.messages;
  let attemptLeaf = loop.userEntryId;
  let usage = emptyUsage();
  let cost = emptyCost();
  const maxRetries = settings.enabled ? settings.maxRetries : 0;
  /** Gives up: the session goes back to before the person's message, and `error` is thrown. */
  const giveUp = async (error: Error): Promise<never> => {
    await tree.setLeaf(loop.leafBeforeUser);
    throw error;
  };
  let lastError: Error | undefined;
  for (let attempt = 0; ; attempt++) {
    const result = await loop.attempt(messages);
    usage = addUsage(usage, result.usage);
    cost = addCost(cost, computeCost(result.usage, loop.modelInfo));
    if (attempt > 0) await loop.emit({ type: 'retry_end', attempt, success: !result.error, error: result.error });
    // An error that came with the abort is its echo, not a cause.
    if (result.error && !loop.signal.aborted) lastError = result.error;
    // Stopped by the deadline: the turn failed (an answer that was complete still stands).
    const overdue = deadlineReason(loop.signal);
    if (overdue && (result.error || result.aborted)) return giveUp(new TurnTimeoutError(overdue.timeoutMs, { cause: lastError }));
    if (!result.error) return { messages: result.messages, usage, cost, aborted: result.aborted, contextTokens: result.contextTokens };

    // Whatever the failed attempt wrote goes off the active branch before anything else.
    await tree.setLeaf(attemptLeaf);
    const error = result.error;
    // An abort is the person's choice, not a failure: their message stays, the answer is dropped.
    if (loop.signal.aborted) return { messages: [], usage, cost, aborted: true, contextTokens: 0 };
    const delayMs = retryDelay(error, attempt + 1, settings);
    if (delayMs === undefined) return giveUp(error);
    // The retry would start at or after the deadline: nothing more can be done in time.
    if (loop.deadline && delayMs >= loop.deadline.remainingMs()) return giveUp(new TurnTimeoutError(loop.deadline.timeoutMs, { cause: error }));
    if (error instanceof ProviderError && error.kind === 'CONTEXT_OVERFLOW') {
      // The context must shrink before the same request can succeed.
      const entry = await loop.compact();
      if (entry) {
        attemptLeaf = entry.id;
        messages = tree.buildContext().messages;
      }
    }
    await loop.emit({ type: 'retry_start', attempt: attempt + 1, maxRetries, delayMs, error });
    try {
      await loop.sleep(delayMs, loop.signal);
    } catch {
      const overdue = deadlineReason(loop.signal);
      return giveUp(overdue ? new TurnTimeoutError(overdue.timeoutMs, { cause: error }) : new CancellationError('Aborted while waiting to retry'));
    }
  }
}

/**
 * An agent's usage book on the model-call seam: every answer the session keeps is counted, and
 * reported as `model_usage` (which the gateway's log, a parent's subagent records and the review
 * caps follow), from the `afterResponse` hook rather than from the engine's events.
 */
import type { Cost } from '../llm/cost.ts';
import type { ModelMiddleware } from '../llm/middleware.ts';
import type { Usage } from '../llm/types.ts';
import { keepOnAbort } from './keep-on-abort.ts';

/** What the middleware writes to. */
export interface UsageMiddlewareParts {
  /** Counts a model call's usage; returns its cost (the agent's `UsageBook.record`). */
  record(usage: Usage): Cost;
  /** Tells the agent's listeners (the `model_usage` event). */
  report(usage: Usage, cost: Cost): Promise<unknown>;
}

/**
 * Counts each finished answer with usage, except an aborted one the session keeps nothing of
 * (the engine drops it, so the book leaves it out too, as it always has). A listener that throws
 * changes nothing: listeners observe.
 */
export function usageMiddleware(parts: UsageMiddlewareParts): ModelMiddleware {
  return {
    name: 'usage-book',
    async afterResponse(message) {
      if (!message.usage) return;
      if (message.stopReason === 'aborted' && keepOnAbort(message) === undefined) return;
      const cost = parts.record(message.usage);
      try {
        await parts.report(message.usage, cost);
      } catch {
        // Listeners observe; a failing one must not fail the call.
      }
    },
  };
}

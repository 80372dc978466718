/**
 * How a turn ended, as its `turn.end` event reports it: the status, the error's message, and what
 * failed in words a program reads (the OpenAI-compatible API answers a failed turn with the status
 * code this decides; see `channels/api/api-wire.ts`).
 */
import { AgentError, ProviderError } from '../core/errors.ts';
import type { TurnFailure, TurnStatus } from './ops/ops-events.ts';

/** How a turn ended, noted along the way for its report. */
export interface TurnReport {
  status: TurnStatus;
  error?: string;
  failure?: TurnFailure;
}

/** What failed: the error's category, and for a model provider's failure its kind, provider and wait. */
export function turnFailureOf(error: unknown): TurnFailure {
  if (error instanceof ProviderError) {
    return { category: error.category, kind: error.kind, provider: error.provider, ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }) };
  }
  return { category: error instanceof AgentError ? error.category : 'INTERNAL' };
}

/**
 * A turn's report on the event stream: `turn.start` as it begins, then `turn.end` with how it
 * ended, how long it took, and the tokens and cost of everything it spent: every model call of its
 * agent (follow-ups and subagents included, from the agent's own account) and the recordings heard
 * for it (transcriptions, whose cost the hearing reports through {@link TurnReport.spent}). So a
 * turn's `costUsd` is what the usage ledger and the metrics count for it (they read `model.usage`,
 * transcriptions included).
 */
import type { Agent } from '../agent/agent.ts';
import { AgentError, errorMessage, ProviderError } from '../core/errors.ts';
import { opsTokens, type OpsEvents, type OpsPlace, type OpsTokens, type TurnFailure, type TurnStatus } from './ops/ops-events.ts';

/** How a turn ended and what it spent, noted along the way. */
export class TurnReport {
  status: TurnStatus = 'ok';
  error?: string;
  /** What failed, in words a program reads (the OpenAI-compatible API answers a failed turn with the status code this decides; see `channels/api/api-wire.ts`). */
  failure?: TurnFailure;
  #tokens: OpsTokens = opsTokens({ input: 0, output: 0 });
  #costUsd = 0;

  /** Adds the usage of one model call (or a subagent's calls). */
  used(usage: Parameters<typeof opsTokens>[0], costUsd: number): void {
    const added = opsTokens(usage);
    const tokens = this.#tokens;
    this.#tokens = { input: tokens.input + added.input, output: tokens.output + added.output, cacheRead: tokens.cacheRead + added.cacheRead, cacheWrite: tokens.cacheWrite + added.cacheWrite };
    this.#costUsd += costUsd;
  }

  /** Adds a cost that is no model call of the agent's (a recording transcribed for the turn), in US dollars. */
  spent(costUsd: number): void {
    this.#costUsd += costUsd;
  }

  get tokens(): OpsTokens {
    return this.#tokens;
  }

  get costUsd(): number {
    return this.#costUsd;
  }
}

/** Where a turn runs and what it is, for its events. */
export interface TurnPlace {
  place: OpsPlace;
  profile: string;
  agent: Pick<Agent, 'subscribe'>;
  scheduled: boolean;
}

/**
 * Runs one turn (`run`, given its report to note how it ends and what else it spent) between its
 * `turn.start` and `turn.end` events; nothing is reported where nobody listens.
 */
export async function reportTurn<T>(ops: OpsEvents | undefined, turn: TurnPlace, run: (report: TurnReport) => Promise<T>): Promise<T> {
  const report = new TurnReport();
  if (!ops?.listened) return run(report);
  const { place, profile } = turn;
  ops.emit({ type: 'turn.start', ...place, profile, scheduled: turn.scheduled });
  const began = performance.now();
  const counting = turn.agent.subscribe((event) => {
    if (event.type === 'agent_end' || event.type === 'subagent_usage') report.used(event.usage, event.cost.total);
  });
  try {
    return await run(report);
  } catch (error) {
    report.status = 'error';
    report.error = errorMessage(error);
    report.failure = turnFailureOf(error);
    throw error;
  } finally {
    counting();
    const durationMs = Math.round(performance.now() - began);
    ops.emit({ type: 'turn.end', ...place, profile, status: report.status, durationMs, tokens: report.tokens, costUsd: report.costUsd, ...(report.error !== undefined && { error: report.error }), ...(report.failure && { failure: report.failure }) });
  }
}

/** What failed: the error's category, and for a model provider's failure its kind, provider and wait. */
export function turnFailureOf(error: unknown): TurnFailure {
  if (error instanceof ProviderError) {
    return { category: error.category, kind: error.kind, provider: error.provider, ...(error.retryAfterMs !== undefined && { retryAfterMs: error.retryAfterMs }) };
  }
  return { category: error instanceof AgentError ? error.category : 'INTERNAL' };
}

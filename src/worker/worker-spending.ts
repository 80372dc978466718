/**
 * Spending caps on Workers: the gateway's own gate (`budgetGate`: the lines a call counts against,
 * its worst case, the refusal's words), reserving on the bot's one spend object
 * (`spend-object.ts`) instead of a book in the process, since a conversation's calls run in its
 * own object, anywhere. It fails closed: when the spend object cannot be reached, or answers with
 * an error, the call is refused and the person told so; when `OPERATOR_BUDGETS` is invalid, every
 * call is refused, saying what is wrong; while an admin paused model calls, every call is refused
 * with the gateway's `SpendingPausedError` (a call whose model has no prices reserves nothing, and
 * asks the spend object only whether calls are paused). After a turn's answer it gives the notice
 * near a cap (`warning`).
 */
import type { SpendGate } from '../agent/spend-gate.ts';
import { BudgetExhaustedError, errorMessage } from '../core/errors.ts';
import { budgetGate, type CostGate, type SpendLedger } from '../gateway/budget/budget-gate.ts';
import { SpendingPausedError } from '../gateway/budget/spending-paused.ts';
import { watchedLines } from '../gateway/budget/spend-warning.ts';
import type { BudgetsConfig } from '../gateway/config/budget-schema.ts';
import { getModelInfo } from '../llm/catalog.ts';
import type { TurnContext } from '../tools/tool.ts';
import { spendObject } from './spend-object.ts';
import { workerBudgets } from './worker-budgets.ts';
import { workerConfig } from './worker-config.ts';
import type { WorkerEnv } from './worker-env.ts';

/** What a person is told when the spend object cannot be reached: nothing went out. */
export const spendUnreachableText = "Not answered: the bot's spending counter could not be reached, and no model call goes out uncounted. Please try again in a moment.";

/** How much longer than a turn's deadline a reservation is held without its settle. */
const holdMarginMs = 60_000;

/** The spending of one conversation's model calls (and transcriptions: `reserveCost`) on Workers. */
export interface WorkerSpending extends SpendGate, CostGate {
  /**
   * The notice due once `turn` has answered, when a cap of its conversation or its person has
   * passed `warnAt` of itself (once a UTC day per cap); undefined when none is due. Read after the
   * turn's calls are settled. Rejects when the spend object cannot be reached (no notice then).
   */
  warning(turn: TurnContext): Promise<string | undefined>;
}

/**
 * The spending of the conversation `conversation` (its session key, its object's name) of the
 * Worker whose bindings and variables are `env`: the gate its agents' calls pass.
 */
export function workerSpending(env: WorkerEnv, conversation: string): WorkerSpending {
  // No call outlives its turn's deadline: a reservation still unsettled after it never will be.
  const holdMs = workerConfig(env).config.turnTimeoutSeconds * 1000 + holdMarginMs;
  // The settles on their way: a notice read before the last of them would miss its cost.
  const settling = new Set<Promise<void>>();
  const gate = budgetGate(remoteLedger(env, { holdMs, conversation, settling }), () => budgetsOrRefusal(env));
  return {
    async reserve(request, turn) {
      // The gate asks nothing about a call without prices: the kill switch is asked alone.
      if (!getModelInfo(request.model)) await refuseIfPaused(env, conversation);
      return gate.reserve(request, turn);
    },
    // A transcription's worst case, on the same lines as the turn's calls (the spend object refuses it while calls are paused).
    reserveCost: (turn, worstCaseUsd, refused) => gate.reserveCost(turn, worstCaseUsd, refused),
    async warning(turn) {
      const configured = workerBudgets(env);
      if ('problem' in configured) return undefined;
      const lines = watchedLines(configured.budgets, turn);
      if (lines.length === 0) return undefined;
      await Promise.all(settling);
      return spendObject(env).warning(lines, configured.budgets.warnAt);
    },
  };
}

/** The caps in force; an invalid `OPERATOR_BUDGETS` refuses the call, saying what is wrong. */
function budgetsOrRefusal(env: WorkerEnv): BudgetsConfig {
  const configured = workerBudgets(env);
  if ('problem' in configured) throw new BudgetExhaustedError(`Not answered: ${configured.problem}. Please let the bot's admin know.`, { reason: 'misconfigured' });
  return configured.budgets;
}

/** Refuses a call that reserves nothing while calls are paused, or when that cannot be known. */
async function refuseIfPaused(env: WorkerEnv, conversation: string): Promise<void> {
  let paused;
  try {
    paused = await spendObject(env).paused(conversation);
  } catch (error) {
    throw unreachable(error);
  }
  if (paused) throw new SpendingPausedError();
}

/** The refusal of a call the spend object could not be asked about. */
function unreachable(error: unknown): BudgetExhaustedError {
  console.error(`spending: the spend object could not be reached (${errorMessage(error)}); the model call is refused`);
  return new BudgetExhaustedError(spendUnreachableText, { reason: 'unreachable' });
}

/**
 * The spend object as the gate's ledger: each reservation one request, its settle another (not
 * waited for: the turn goes on; kept in `settling` until it is through). A stub is taken for every
 * request, as one that failed stays broken.
 */
function remoteLedger(env: WorkerEnv, options: { holdMs: number; conversation: string; settling: Set<Promise<void>> }): SpendLedger {
  const { holdMs, conversation, settling } = options;
  return {
    async reserve(lines, amount) {
      let answer;
      try {
        answer = await spendObject(env).reserve({ lines: [...lines], amount, holdMs, conversation });
      } catch (error) {
        throw unreachable(error);
      }
      if ('paused' in answer) throw new SpendingPausedError();
      if ('refusal' in answer) return answer.refusal;
      const { id } = answer;
      const lost = (error: unknown) => console.error(`spending: a call's settle did not reach the spend object (${errorMessage(error)}); its reservation expires unsettled and its cost is not counted`);
      return {
        settle: (actual) => {
          try {
            const sent = spendObject(env).settle(id, [...lines], actual).catch(lost);
            settling.add(sent);
            void sent.finally(() => settling.delete(sent));
          } catch (error) {
            lost(error);
          }
        },
      };
    },
  };
}

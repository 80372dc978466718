/**
 * Spending caps on Workers: the gateway's own gate (`budgetGate`: the lines a call counts against,
 * its worst case, the refusal's words), reserving on the bot's one spend object
 * (`spend-object.ts`) instead of a book in the process, since a conversation's calls run in its
 * own object, anywhere. It fails closed: when the spend object cannot be reached, or answers with
 * an error, the call is refused and the person told so; when `OPERATOR_BUDGETS` is invalid, every
 * call is refused, saying what is wrong. `/budget` shows the spend against the caps here.
 */
import type { SpendGate } from '../agent/spend-gate.ts';
import { BudgetExhaustedError, errorMessage } from '../core/errors.ts';
import { spendReport } from '../gateway/budget/budget-command.ts';
import { budgetGate, type SpendLedger } from '../gateway/budget/budget-gate.ts';
import type { BudgetsConfig } from '../gateway/config/budget-schema.ts';
import type { TurnContext } from '../tools/tool.ts';
import { spendObject } from './spend-object.ts';
import { workerBudgets } from './worker-budgets.ts';
import { workerConfig } from './worker-config.ts';
import type { WorkerEnv } from './worker-env.ts';

/** What a person is told when the spend object cannot be reached: nothing went out. */
export const spendUnreachableText = "Not answered: the bot's spending counter could not be reached, and no model call goes out uncounted. Please try again in a moment.";

/** How much longer than a turn's deadline a reservation is held without its settle. */
const holdMarginMs = 60_000;

/** The gate of the Worker whose bindings and variables are `env`. */
export function workerSpendGate(env: WorkerEnv): SpendGate {
  // No call outlives its turn's deadline: a reservation still unsettled after it never will be.
  const holdMs = workerConfig(env).config.turnTimeoutSeconds * 1000 + holdMarginMs;
  return budgetGate(remoteLedger(env, holdMs), () => budgetsOrRefusal(env));
}

/** The caps in force; an invalid `OPERATOR_BUDGETS` refuses the call, saying what is wrong. */
function budgetsOrRefusal(env: WorkerEnv): BudgetsConfig {
  const configured = workerBudgets(env);
  if ('problem' in configured) throw new BudgetExhaustedError(`Not answered: ${configured.problem}. Please let the bot's admin know.`, { reason: 'misconfigured' });
  return configured.budgets;
}

/**
 * The spend object as the gate's ledger: each reservation one request, its settle another (not
 * waited for: the turn goes on). A stub is taken for every request, as one that failed stays
 * broken.
 */
function remoteLedger(env: WorkerEnv, holdMs: number): SpendLedger {
  return {
    async reserve(lines, amount) {
      let answer;
      try {
        answer = await spendObject(env).reserve({ lines: [...lines], amount, holdMs });
      } catch (error) {
        console.error(`spending: the spend object could not be reached (${errorMessage(error)}); the model call is refused`);
        throw new BudgetExhaustedError(spendUnreachableText, { reason: 'unreachable' });
      }
      if ('refusal' in answer) return answer.refusal;
      const { id } = answer;
      const lost = (error: unknown) => console.error(`spending: a call's settle did not reach the spend object (${errorMessage(error)}); its reservation expires unsettled and its cost is not counted`);
      return {
        settle: (actual) => {
          try {
            spendObject(env).settle(id, [...lines], actual).catch(lost);
          } catch (error) {
            lost(error);
          }
        },
      };
    },
  };
}

/** `/budget ARGS` on Workers for `turn`'s seat: what is spent here against the caps (no pause there). */
export async function workerBudgetCommand(env: WorkerEnv, args: string, turn: TurnContext): Promise<string> {
  if (args.trim() !== '') return 'On Workers, /budget shows what is spent here; pausing model calls (/budget pause) is not there yet.';
  const configured = workerBudgets(env);
  if ('problem' in configured) return `${configured.problem}: every model call is refused until an admin fixes it.`;
  try {
    return await spendReport(configured.budgets, turn, (lines) => spendObject(env).spent(lines.map(({ scope, period }) => ({ scope, period }))));
  } catch (error) {
    console.error(`spending: /budget could not reach the spend object: ${errorMessage(error)}`);
    return "The bot's spending counter could not be reached; please try again in a moment.";
  }
}

/**
 * `/budget` on Workers: what is spent here against the caps (from the bot's spend object, in one
 * request), after whether model calls are paused; `/budget pause` and `/budget resume` (admins)
 * are the kill switch, kept in the spend object (see `spend-object.ts`), with the gateway's words.
 */
import { errorMessage } from '../core/errors.ts';
import { spendReport } from '../gateway/budget/budget-command.ts';
import { killSwitchCommand, pausedLine } from '../gateway/budget/spending-paused.ts';
import type { TurnContext } from '../tools/tool.ts';
import { spendObject } from './spend-object.ts';
import { workerBudgets } from './worker-budgets.ts';
import type { WorkerEnv } from './worker-env.ts';

/** What `/budget` says when the spend object cannot be reached. */
const unreachableText = "The bot's spending counter could not be reached; please try again in a moment.";

/** `/budget ARGS` on Workers for `turn`'s seat. */
export async function workerBudgetCommand(env: WorkerEnv, args: string, turn: TurnContext): Promise<string> {
  const [verb = '', ...rest] = args.trim().split(/\s+/);
  if ((verb === 'pause' || verb === 'resume') && rest.length === 0) {
    const spend = () => spendObject(env);
    try {
      return await killSwitchCommand(verb, turn.admin, { pause: () => spend().pause(), resume: () => spend().resume() });
    } catch (error) {
      console.error(`spending: /budget ${verb} could not reach the spend object: ${errorMessage(error)}`);
      return unreachableText;
    }
  }
  // An admin's answer to a cap's question (allow, raise, deny) is not there on Workers: no question is put.
  if (verb !== '') return 'Usage: /budget [pause | resume]';
  const configured = workerBudgets(env);
  if ('problem' in configured) return `${configured.problem}: every model call is refused until an admin fixes it.`;
  try {
    const [paused, report] = await Promise.all([spendObject(env).paused(), spendReport(configured.budgets, turn, (lines) => spendObject(env).spent(lines.map(({ scope, period }) => ({ scope, period }))))]);
    return (paused ? `${pausedLine}\n` : '') + report;
  } catch (error) {
    console.error(`spending: /budget could not reach the spend object: ${errorMessage(error)}`);
    return unreachableText;
  }
}

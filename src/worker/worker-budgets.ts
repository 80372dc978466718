/**
 * The spending caps on Workers: `OPERATOR_BUDGETS`, the JSON of `operator.json`'s `budgets`
 * section (there is no `operator.json` on Workers), validated with the same schema; unset, the
 * same safe defaults as on Node. Unlike the Worker's other settings, an invalid value is not
 * passed over for the defaults: whoever set it meant other caps than the defaults, perhaps lower
 * ones, so every model call is refused until it is fixed, saying why (see `worker-spending.ts`).
 */
import { budgetsSchema, type BudgetsConfig } from '../gateway/config/budget-schema.ts';
import { formatIssues } from '../gateway/config/format-issues.ts';
import type { WorkerEnv } from './worker-env.ts';

/** The variable that holds the caps. */
export const budgetsVariable = 'OPERATOR_BUDGETS';

/** The caps in force, or why there are none: the variable is not valid (never quoting its value). */
export type WorkerBudgets = { budgets: BudgetsConfig } | { problem: string };

/** Read once per set of variables (an isolate keeps one); the problem is logged then. */
const read = new WeakMap<WorkerEnv, WorkerBudgets>();

/** The caps of the Worker whose variables are `env`. */
export function workerBudgets(env: WorkerEnv): WorkerBudgets {
  let result = read.get(env);
  if (!result) {
    result = parseBudgets(env.OPERATOR_BUDGETS);
    if ('problem' in result) console.error(`operator: ${result.problem}; every model call is refused until it is fixed`);
    read.set(env, result);
  }
  return result;
}

/** `text` (the variable's value; blank or unset: the defaults) as caps, or what is wrong with it. */
export function parseBudgets(text: string | undefined): WorkerBudgets {
  if (text === undefined || text.trim() === '') return { budgets: budgetsSchema.parse(undefined) };
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch {
    return { problem: `${budgetsVariable} is not valid JSON (it holds the budgets section of operator.json, e.g. {"person":{"day":2}})` };
  }
  const parsed = budgetsSchema.safeParse(input);
  if (parsed.success) return { budgets: parsed.data };
  const problems = formatIssues(parsed.error.issues, input, budgetsVariable, budgetsSchema);
  return { problem: `${budgetsVariable} is not valid: ${problems.map((problem) => `${problem.path}: ${problem.reason}`).join('; ')}` };
}

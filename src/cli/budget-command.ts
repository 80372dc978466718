/**
 * `operator budget status|pause|resume`: the kill switch of every model call and the spending at a
 * glance, from the command line. While the gateway runs, the request goes to it (the URL and token
 * are in OPERATOR_HOME/gateway.json), so a pause stops its running turns at their next model call
 * and a resume answers the messages that waited, as `/budget pause|resume` does; when no gateway
 * runs, the store is read or changed directly and the gateway takes it up when it starts. Either
 * way the answers are the same (see `gateway/budget/budget-control.ts`).
 *
 * Who may: whoever can run this on the machine and read OPERATOR_HOME, which holds the control
 * token and the store; that is the gateway's owner.
 */
import { gatewaySpendGate } from '../gateway/budget/gateway-spending.ts';
import { applyBudgetRequest, type BudgetReply, type BudgetRequest } from '../gateway/budget/budget-control.ts';
import type { SpendingOverview } from '../gateway/budget/spending-overview.ts';
import { configuredBudgets, profilesWithOwnCaps } from '../gateway/config/budget-schema.ts';
import { loadConfig } from '../gateway/config/index.ts';
import { budgetControlPath } from '../gateway/control/control-route.ts';
import { createStoreFromEnv } from '../store/from-env.ts';
import { parseCommandArgs, UsageError } from './cli-options.ts';
import { runControlCommand } from './gateway-request.ts';

/** The usage text of `operator budget`. */
export const budgetUsage = [
  'operator budget [status] [--json] | pause | resume',
  '',
  '  status    whether model calls are paused, what the gateway spent today and this month (UTC),',
  '            and the spending caps in force (--json: as JSON); the default',
  '  pause     stop every model call: running turns stop at their next call, and messages wait',
  '  resume    let model calls go on; the messages that waited are answered, once each',
  '',
  'Works on the running gateway when there is one, else on the store (OPERATOR_HOME, OPERATOR_STORE),',
  'which the gateway reads when it starts. Whoever can run this and read OPERATOR_HOME owns the gateway.',
].join('\n');

/** A reply as the command prints it: a refusal has no overview. */
type CommandReply = Omit<BudgetReply, 'overview'> & { overview?: SpendingOverview };

/** Runs `operator budget <subcommand>`; resolves to the exit code (throws a UsageError for bad arguments). */
export async function runBudgetCommand(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const parsed = parseBudgetArgs(args);
  return runControlCommand(
    {
      path: budgetControlPath,
      request: parsed.request,
      changes: parsed.request.action !== 'status',
      json: parsed.json,
      fromGateway: (answer) => ({ ok: answer.ok, text: answer.text, data: answer.overview as SpendingOverview }),
      fromStore: async () => {
        const reply = await applyToStore(parsed.request, env);
        return { ok: reply.ok, text: reply.text, data: reply.overview };
      },
    },
    env,
  );
}

/** The request the arguments ask for; throws a {@link UsageError} for the person typing them. */
export function parseBudgetArgs(args: string[]): { request: BudgetRequest; json: boolean } {
  const { values, positionals } = parseCommandArgs(args, { json: { type: 'boolean' } });
  const [subcommand = 'status', ...rest] = positionals;
  if (subcommand !== 'status' && subcommand !== 'pause' && subcommand !== 'resume') throw new UsageError(`unknown subcommand "${subcommand}"`);
  if (rest.length > 0) throw new UsageError(`${subcommand} takes no arguments`);
  if (values.json === true && subcommand !== 'status') throw new UsageError('--json goes with status only');
  return { request: { action: subcommand }, json: values.json === true };
}

/** Applies the request to the store directly: no gateway runs, so nothing else spends or switches meanwhile. */
async function applyToStore(request: BudgetRequest, env: NodeJS.ProcessEnv): Promise<CommandReply> {
  if (env.OPERATOR_STORE?.trim() === 'memory') {
    return { ok: false, text: 'No gateway is running, and OPERATOR_STORE=memory keeps nothing between processes: there is no spending to show or pause.' };
  }
  const { config } = loadConfig(env);
  const store = createStoreFromEnv(env);
  try {
    // The gateway's own spending code over the store: the same kill switch key, the same book.
    const spending = gatewaySpendGate({ store, budgets: configuredBudgets(config), log: (line) => process.stderr.write(`${line}\n`) });
    await spending.load();
    return await applyBudgetRequest(request, { spending, profiles: profilesWithOwnCaps(config), offline: true });
  } finally {
    await store.close();
  }
}

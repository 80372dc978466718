/**
 * `operator budget pause|resume|status`, applied to the gateway's spending: the running gateway's,
 * when the command line's request comes over the control route (`control/control-route.ts`) or
 * the admin console's over its API, so a pause stops running turns at their next model call and a
 * resume answers the messages that waited, as `/budget pause|resume` does; or, when no gateway
 * runs, one over the store (the kill switch is the store's `budget-paused`, which the gateway reads
 * when it starts).
 *
 * Who may: whoever runs the command line on the machine (it reads OPERATOR_HOME, where the control
 * token is: that is the owner) and the admin console's admin.
 */
import * as z from 'zod';
import { profilesWithOwnCaps } from '../config/budget-schema.ts';
import type { Gateway } from '../gateway.ts';
import type { GatewaySpending } from './gateway-spending.ts';
import { overviewText, spendingOverview, type SpendingOverview } from './spending-overview.ts';

/** What `operator budget` does. */
export const budgetActions = ['pause', 'resume', 'status'] as const;

/** A request of `operator budget`, as it travels to the gateway. */
export const budgetRequestSchema = z.object({ action: z.enum(budgetActions) }).strict();

/** A request of `operator budget`. */
export type BudgetRequest = z.infer<typeof budgetRequestSchema>;

/** The answer: the text to print, and the spending as it is after the request (for `--json` and the console). */
export interface BudgetReply {
  ok: boolean;
  text: string;
  overview: SpendingOverview;
}

/** What a request works on. */
export interface BudgetControl {
  spending: Pick<GatewaySpending, 'paused' | 'pause' | 'resume' | 'book' | 'budgets'>;
  /** The profiles with caps of their own. */
  profiles: readonly string[];
  /** True when no gateway runs: the request changes the store, which the gateway reads when it starts. */
  offline?: boolean;
}

/** The control of the running gateway's spending. */
export function gatewayBudgetControl(gateway: Pick<Gateway, 'spending' | 'config'>): BudgetControl {
  return { spending: gateway.spending, profiles: profilesWithOwnCaps(gateway.config) };
}

/** Applies `request`; pausing what is paused, or resuming what is not, says so and changes nothing. */
export async function applyBudgetRequest(request: BudgetRequest, control: BudgetControl): Promise<BudgetReply> {
  const text = request.action === 'status' ? undefined : await switchCalls(request.action, control);
  const overview = await spendingOverview(control.spending, control.profiles);
  return { ok: true, text: text ?? overviewText(overview), overview };
}

/** Pauses or resumes every model call; resolves to what was done, in words. */
async function switchCalls(action: 'pause' | 'resume', { spending, offline }: BudgetControl): Promise<string> {
  const how = '(operator budget resume, or /budget resume in a chat)';
  if (action === 'pause') {
    if (spending.paused) return 'Model calls were paused already.';
    await spending.pause();
    return offline ? `Paused all model calls: when the gateway starts, messages wait until they resume ${how}.` : `Paused all model calls: running turns stop at their next call, and messages wait until they resume ${how}.`;
  }
  if (!spending.paused) return 'Model calls are not paused: nothing to resume.';
  await spending.resume();
  return offline ? 'Model calls go on; the messages that waited are answered when the gateway starts.' : 'Model calls go on; the messages that waited are answered now.';
}

/**
 * The console's spending: the overview `operator budget status` prints (paused or not, what the
 * gateway spent today and this month, the caps in force), the kill switch through
 * `applyBudgetRequest` on the gateway's own spending (what `operator budget pause|resume` does
 * through the running gateway: a pause stops turns at their next model call, a resume answers the
 * messages that waited), and one conversation's spend today against the caps its turns count for.
 *
 * There is no list of the conversations or people that spent most: the spend book knows only the
 * keys it has loaded, and the store keeps every day's keys (they do not expire), so a list would
 * read them all at each look. The Usage page has each conversation's cost.
 */
import * as z from 'zod';
import { isDirectChannel } from '../../resources/memory-layers.ts';
import { conversationDayCap, spendLines } from '../budget/budget-gate.ts';
import { applyBudgetRequest, gatewayBudgetControl } from '../budget/budget-control.ts';
import { periodOf } from '../budget/spend-book.ts';
import { spendingOverview, type SpendingOverview } from '../budget/spending-overview.ts';
import type { AdminGateway } from './admin-routes.ts';

/** A change the console asks for: pause or resume every model call. */
export const spendingChange = z.object({ action: z.enum(['pause', 'resume']) }).strict();

/** The gateway's spending as `operator budget status` shows it. */
export function spendingView(gateway: AdminGateway): Promise<SpendingOverview> {
  const control = gatewayBudgetControl(gateway);
  return spendingOverview(control.spending, control.profiles);
}

/** Pauses or resumes every model call, as `operator budget pause|resume` does; `text` says what was done. */
export async function changeSpending(gateway: AdminGateway, change: z.infer<typeof spendingChange>): Promise<{ ok: boolean; text: string }> {
  const { ok, text } = await applyBudgetRequest(change, gatewayBudgetControl(gateway));
  return { ok, text };
}

/** A conversation's spend today against one of its caps. */
export interface ConversationSpendLine {
  /** Whose: `this conversation`, or the person of a direct conversation (`person telegram:42`). */
  what: string;
  /** US dollars today (UTC), settled. */
  spent: number;
  /** The cap today, with what admins raised it by. */
  cap: number;
}

/** What conversation `key` spent today against its caps, and what has none here (so is not counted). */
export interface ConversationSpending {
  day: string;
  lines: ConversationSpendLine[];
  uncapped: string[];
}

/**
 * The spend today of conversation `key` (of `profile`): its own cap's, and in a direct
 * conversation its person's, read through the gateway's spend book.
 */
export async function conversationSpending(gateway: AdminGateway, key: string, profile: string): Promise<ConversationSpending> {
  const budgets = gateway.spending.budgets(profile);
  const [platform = '', kind, ...rest] = key.split(':');
  // A direct conversation's person is in its key (`telegram:dm:42`); a group's turns are each a person's of their own.
  const person = kind === 'dm' ? rest.join(':') : undefined;
  const admin = person === undefined || gateway.access.isAdmin(platform, person);
  // The caps a turn of that person here counts for, as the gate reads them.
  const capped = spendLines(budgets, { sessionKey: key, platform, senderId: person ?? '', admin, scheduled: false }).filter((line) => line.scope !== 'gateway');
  const lines = await Promise.all(
    capped.map(async (line): Promise<ConversationSpendLine> => {
      const [spent, raised] = await Promise.all([gateway.spending.book.spent(line.scope, line.period), gateway.spending.book.raised(line.scope, line.period)]);
      return { what: line.scope.startsWith('conversation ') ? 'this conversation' : line.scope, spent, cap: line.cap + raised };
    }),
  );
  const uncapped: string[] = [];
  if (conversationDayCap(budgets, key) === undefined) uncapped.push(isDirectChannel(key) ? 'this direct conversation' : 'this conversation');
  if (person !== undefined && admin) uncapped.push(`person ${platform}:${person} (an admin)`);
  return { day: periodOf('day', new Date()), lines, uncapped };
}

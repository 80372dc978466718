/**
 * The gateway's spending at a glance, as `operator budget status` and the admin console show it:
 * whether model calls are paused, what the gateway spent today and this month (UTC, read through
 * the spend book, which counts the gateway's day and month even without a cap), and the caps in
 * force: the top-level ones, the defaults said as such, then each profile's own.
 */
import { defaultBudgets, type BudgetsConfig } from '../config/budget-schema.ts';
import { dollars } from './budget-gate.ts';
import type { GatewaySpending } from './gateway-spending.ts';
import { periodOf, type SpendPeriod } from './spend-book.ts';

/** One cap in force. */
export interface CapInForce {
  /** Whom it caps, in words: `the gateway`, `each group conversation`, `each conversation of profile team`. */
  applies: string;
  period: SpendPeriod;
  /** US dollars. */
  usd: number;
  /** True when no configuration set it (a default of `docs/budgets.md`). */
  default: boolean;
}

/** The overview. */
export interface SpendingOverview {
  /** Whether every model call is stopped (`/budget pause`, `operator budget pause`). */
  paused: boolean;
  /** The UTC day and month the spend is of: `2026-11-30`, `2026-11`. */
  day: string;
  month: string;
  /** What the gateway spent in them, US dollars (settled calls; those under way are not in it yet). */
  spent: { day: number; month: number };
  caps: CapInForce[];
  /** What no cap bounds, in words (`direct conversations`, `admins`, ...). */
  uncapped: string[];
}

/** What the overview reads: the gateway's spending (the running one's, or one over the store). */
export type OverviewSpending = Pick<GatewaySpending, 'paused' | 'book' | 'budgets'>;

/** The overview of `spending`; `profiles` are the profiles with caps of their own. */
export async function spendingOverview(spending: OverviewSpending, profiles: readonly string[], now = new Date()): Promise<SpendingOverview> {
  const [day, month] = await Promise.all([spending.book.spent('gateway', 'day'), spending.book.spent('gateway', 'month')]);
  const top = spending.budgets();
  const { caps, uncapped } = capsOf(top);
  for (const profile of profiles) caps.push(...profileCaps(profile, spending.budgets(profile), top));
  return { paused: spending.paused, day: periodOf('day', now), month: periodOf('month', now), spent: { day, month }, caps, uncapped };
}

/** The overview in words, a line a kind of cap. */
export function overviewText(overview: SpendingOverview): string {
  const lines = [
    overview.paused ? 'Model calls are paused: messages wait until they resume (operator budget resume, or /budget resume in a chat).' : 'Model calls go on.',
    `The gateway spent ${dollars(overview.spent.day)} today (${overview.day}) and ${dollars(overview.spent.month)} this month (${overview.month}), UTC.`,
    'Caps in force:',
  ];
  // One line per whom it caps: "the gateway: $50.00 a day, $500.00 a month".
  const grouped = new Map<string, string[]>();
  for (const cap of overview.caps) grouped.set(cap.applies, [...(grouped.get(cap.applies) ?? []), `${dollars(cap.usd)} a ${cap.period}${cap.default ? ' (default)' : ''}`]);
  for (const [applies, limits] of grouped) lines.push(`- ${applies}: ${limits.join(', ')}`);
  if (overview.uncapped.length > 0) lines.push(`No cap: ${overview.uncapped.join(', ')}.`);
  return lines.join('\n');
}

/** The top-level caps, and what they leave uncapped. */
function capsOf(budgets: BudgetsConfig): { caps: CapInForce[]; uncapped: string[] } {
  const caps: CapInForce[] = [];
  const uncapped: string[] = [];
  const add = (applies: string, period: SpendPeriod, usd: number | undefined, byDefault = false) => {
    if (usd !== undefined) caps.push({ applies, period, usd, default: byDefault });
  };
  add('the gateway', 'day', budgets.gateway.day);
  add('the gateway', 'month', budgets.gateway.month);
  if (budgets.gateway.day === undefined && budgets.gateway.month === undefined) uncapped.push('the gateway');
  if (budgets.conversation.day !== undefined) add('each conversation', 'day', budgets.conversation.day);
  else {
    add('each group conversation', 'day', defaultBudgets.groupDay, true);
    uncapped.push('direct conversations');
  }
  add('each person who is not an admin', 'day', budgets.person.day ?? defaultBudgets.personDay, budgets.person.day === undefined);
  // Admins have no person cap: the gateway's caps bound them.
  uncapped.push('admins as persons');
  add('each run of a scheduled job', 'run', budgets.job.run);
  add('each scheduled job', 'day', budgets.job.day);
  if (budgets.job.run === undefined && budgets.job.day === undefined) uncapped.push('scheduled jobs');
  add('each pipeline run', 'run', budgets.pipelineRun.run);
  if (budgets.pipelineRun.run === undefined) uncapped.push('pipeline runs');
  return { caps, uncapped };
}

/** A profile's own caps: those that differ from the top-level ones in its conversations. */
function profileCaps(profile: string, own: BudgetsConfig, top: BudgetsConfig): CapInForce[] {
  const caps: CapInForce[] = [];
  if (own.conversation.day !== undefined && own.conversation.day !== top.conversation.day) caps.push({ applies: `each conversation of profile ${profile}`, period: 'day', usd: own.conversation.day, default: false });
  if (own.person.day !== undefined && own.person.day !== top.person.day) caps.push({ applies: `each person of profile ${profile} who is not an admin`, period: 'day', usd: own.person.day, default: false });
  if (own.job.run !== undefined && own.job.run !== top.job.run) caps.push({ applies: `each run of a scheduled job of profile ${profile}`, period: 'run', usd: own.job.run, default: false });
  if (own.job.day !== undefined && own.job.day !== top.job.day) caps.push({ applies: `each scheduled job of profile ${profile}`, period: 'day', usd: own.job.day, default: false });
  if (own.pipelineRun.run !== undefined && own.pipelineRun.run !== top.pipelineRun.run) caps.push({ applies: `each pipeline run of profile ${profile}`, period: 'run', usd: own.pipelineRun.run, default: false });
  return caps;
}

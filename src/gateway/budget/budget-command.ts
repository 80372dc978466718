/**
 * `/budget`: what is spent against the caps here; `pause` and `resume` for admins, and `allow`,
 * `raise` and `deny ID` answering a spending cap's question where the platform has no buttons.
 */
import type { TurnContext } from '../../tools/tool.ts';
import type { BudgetsConfig } from '../config/budget-schema.ts';
import { dollars, spendLines } from './budget-gate.ts';
import type { GatewaySpending } from './gateway-spending.ts';
import { killSwitchCommand, pausedLine } from './spending-paused.ts';
import type { SpendLine } from './spend-book.ts';

/** Answers to a spending cap's question, by the word `/budget` takes. */
const answers = { allow: 'once', raise: 'raise', deny: 'deny' } as const;

/** `/budget pause|resume` and `/budget allow|raise|deny ID` (admins), or `/budget`: what is spent here. */
export async function budgetCommand(spending: GatewaySpending, args: string, turn: TurnContext): Promise<string> {
  const [verb = '', id, ...rest] = args.trim().split(/\s+/);
  if (verb === '') return (spending.paused ? `${pausedLine}\n` : '') + (await budgetReport(spending, turn));
  if ((verb === 'allow' || verb === 'raise' || verb === 'deny') && id !== undefined && rest.length === 0) {
    if (!spending.asks) return 'No question about a spending cap waits here.';
    return spending.asks.answer(id, answers[verb], { id: turn.senderId, admin: turn.admin });
  }
  if ((verb !== 'pause' && verb !== 'resume') || id !== undefined) return 'Usage: /budget [pause | resume | allow ID | raise ID | deny ID]';
  return killSwitchCommand(verb, turn.admin, spending);
}

/** `/budget`: what is spent today against the caps of `turn`'s seat (the gateway's for admins). */
export async function budgetReport(spending: GatewaySpending, turn: TurnContext): Promise<string> {
  return spendReport(spending.budgets(turn.profile), turn, (lines) => Promise.all(lines.map((line) => spending.book.spent(line.scope, line.period))));
}

/**
 * The lines of `/budget` for `turn` under `budgets`, with `spent` reading what each line shows has
 * spent this period (from the gateway's book, or on Workers from the bot's spend object in one
 * request).
 */
export async function spendReport(budgets: BudgetsConfig, turn: TurnContext, spent: (lines: readonly SpendLine[]) => Promise<number[]>): Promise<string> {
  const lines = spendLines(budgets, turn);
  const shown = turn.admin ? lines : lines.filter((line) => line.scope !== 'gateway');
  if (shown.length === 0) return 'No spending cap applies here (see docs/budgets.md).';
  const words = (scope: string) => (scope === 'gateway' ? 'the gateway' : scope.startsWith('person ') ? `you (${scope.slice(7)})` : 'this conversation');
  const amounts = await spent(shown);
  const rows = shown.map((line, index) => `- ${words(line.scope)}: ${dollars(amounts[index] ?? 0)} of ${dollars(line.cap)} this ${line.period}`);
  return ['Spending (UTC):', ...rows].join('\n');
}

/**
 * The notice near a cap, as the gateway (`gateway-spending.ts`) and the Worker's spend object
 * (`src/worker/spend-object.ts`) both make it: once a conversation's or its person's spend passes
 * `budgets.warnAt` of a cap, the conversation is told once that period. Which caps are watched,
 * when one is due, where the telling is noted and its words are here; each side reads the spend
 * and keeps the note in its own store.
 */
import type { BudgetsConfig } from '../config/budget-schema.ts';
import type { TurnContext } from '../../tools/tool.ts';
import { keySegment } from '../dedupe.ts';
import { dollars, scopeKind, spendLines } from './budget-gate.ts';
import { periodOf, type SpendLine } from './spend-book.ts';

/** The caps of `turn` a notice is given for: its conversation's and its person's (the others are no one's in the chat). */
export function watchedLines(budgets: BudgetsConfig, turn: TurnContext): SpendLine[] {
  return spendLines(budgets, turn).filter((line) => {
    const kind = scopeKind(line.scope);
    return (kind === 'conversation' || kind === 'person') && line.cap > 0;
  });
}

/** Whether `spent` on `line` has reached `warnAt` (0.8: 80%) of its cap. */
export function warningDue(line: SpendLine, spent: number, warnAt: number): boolean {
  return spent >= warnAt * line.cap;
}

/**
 * Where it is noted that `line`'s notice was given in the period of `now` (once a period per
 * cap): `budget-warned:<scope>:<period>` on the gateway; the Worker's spend object passes
 * `spend-warned`, so that its daily sweep of past counters drops these notes too.
 */
export function warnedKey(line: Pick<SpendLine, 'scope' | 'period'>, now: Date, prefix = 'budget-warned'): string {
  return `${prefix}:${keySegment(line.scope)}:${periodOf(line.period, now)}`;
}

/** The notice's words: whose cap, what was spent of it and how much that is. */
export function warningText(line: SpendLine, spent: number): string {
  const person = line.scope.startsWith('person ');
  return `Heads-up: ${person ? 'You have' : 'This conversation has'} spent ${dollars(spent)} of ${person ? 'your' : 'its'} ${dollars(line.cap)} ${line.period === 'day' ? 'daily' : 'monthly'} cap (${Math.round((spent / line.cap) * 100)}%); at the cap I stop answering until it resets (/budget shows it).`;
}

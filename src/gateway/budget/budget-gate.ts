/**
 * Spending caps, checked before every model call (the `SpendGate` the gateway's agents get). A call
 * counts for its person (unless an admin, with no cap set for admins), its conversation and the
 * gateway; its worst case (the request's input at the full input price, about four characters a
 * token, and its `max_tokens` at the output price) is reserved on each; one that does not fit is
 * refused before it goes out, with which cap, what was spent and when it resets; once answered the
 * call is settled at its real cost. A model without prices in the catalog costs nothing here.
 */
import type { SpendGate, SpendTicket } from '../../agent/spend-gate.ts';
import { BudgetExhaustedError, errorMessage } from '../../core/errors.ts';
import { getModelInfo, type ModelInfo } from '../../llm/catalog.ts';
import { computeCost } from '../../llm/cost.ts';
import type { ModelRequest } from '../../llm/types.ts';
import type { TurnContext } from '../../tools/tool.ts';
import { isDirectChannel } from '../../resources/memory-layers.ts';
import { defaultBudgets, type BudgetsConfig } from '../config/budget-schema.ts';
import type { Store } from '../../store/store.ts';
import { keySegment } from '../dedupe.ts';
import { periodOf, SpendBook, type SpendLine, type SpendRefusal } from './spend-book.ts';

/** The providers' cap on a default `max_tokens` from the catalog (see `anthropic-request.ts`). */
const defaultMaxTokensCap = 32_000;

/** The caps a call of `turn` counts against. */
export function spendLines(budgets: BudgetsConfig, turn: TurnContext | undefined): SpendLine[] {
  const lines: SpendLine[] = [];
  if (budgets.gateway.day !== undefined) lines.push({ scope: 'gateway', period: 'day', cap: budgets.gateway.day });
  if (budgets.gateway.month !== undefined) lines.push({ scope: 'gateway', period: 'month', cap: budgets.gateway.month });
  if (!turn) return lines;
  const group = !isDirectChannel(turn.sessionKey);
  const conversationCap = budgets.conversation.day ?? (group ? defaultBudgets.groupDay : undefined);
  if (conversationCap !== undefined) lines.push({ scope: `conversation ${turn.sessionKey}`, period: 'day', cap: conversationCap });
  // Admins have no person cap: the gateway's caps bound them.
  if (!turn.admin) lines.push({ scope: `person ${turn.platform}:${turn.senderId}`, period: 'day', cap: budgets.person.day ?? defaultBudgets.personDay });
  return lines;
}

/** The most `request` can cost, in dollars: all its input uncached, all of `max_tokens` written. */
export function worstCaseCost(request: ModelRequest, info: ModelInfo | undefined): number {
  if (!info) return 0;
  const characters = request.systemPrompt.length + JSON.stringify(request.messages).length + JSON.stringify(request.ephemeral ?? []).length + JSON.stringify(request.tools ?? []).length;
  const output = request.maxTokens ?? Math.min(info.maxOutput, defaultMaxTokensCap);
  return computeCost({ input: Math.ceil(characters / 4), output, cacheRead: 0, cacheWrite: 0 }, info).total;
}

/** The refusal's words: which cap, what was spent, when it resets. */
export function refusalText(refusal: SpendRefusal, now: Date): string {
  const { line } = refusal;
  const what = line.scope === 'gateway' ? "the gateway's" : line.scope.startsWith('person ') ? "this person's" : "this conversation's";
  const reset = new Date(now);
  if (line.period === 'day') reset.setUTCHours(24, 0, 0, 0);
  else {
    reset.setUTCMonth(reset.getUTCMonth() + 1, 1);
    reset.setUTCHours(0, 0, 0, 0);
  }
  return `${what} spending cap of ${dollars(line.cap)} a ${line.period} is reached (${dollars(refusal.spent)} spent, ${dollars(refusal.reserved)} in calls under way); it resets at ${reset.toISOString().slice(0, 16).replace('T', ' ')} UTC.`;
}

/** Dollars as people read them: cents from a dollar up (and for nothing), four places below. */
export function dollars(value: number): string {
  return value === 0 || value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`;
}

/** The gateway's gate over `book`, with the caps of `budgets`. */
export function budgetGate(book: SpendBook, budgets: (profile?: string) => BudgetsConfig, now: () => Date = () => new Date()): SpendGate {
  return {
    async reserve(request, turn): Promise<SpendTicket> {
      const info = getModelInfo(request.model);
      const lines = spendLines(budgets(turn?.profile), turn);
      if (lines.length === 0 || !info) return { settle: () => {} };
      const held = await book.reserve(lines, worstCaseCost(request, info));
      if (!('settle' in held)) throw new BudgetExhaustedError(`Not answered: ${refusalText(held, now())}`, { scope: held.line.scope, period: held.line.period, cap: held.line.cap, spent: held.spent });
      return { settle: (usage) => held.settle(usage ? computeCost(usage, info).total : 0) };
    },
  };
}

/** The gateway's spending: its gate, the book `/budget` reads, and the kill switch. */
export interface GatewaySpending extends SpendGate {
  book: SpendBook;
  /** The caps of `profile`'s conversations (the top-level ones, or the profile's own). */
  budgets(profile?: string): BudgetsConfig;
  /** All model calls are stopped (`/budget pause`): each refuses with a {@link SpendingPausedError}. */
  readonly paused: boolean;
  /** Reads whether calls were paused when the gateway last stopped (kept in the store). */
  load(): Promise<void>;
  pause(): Promise<void>;
  /** Lets calls go out again, then tells `onResume`'s listeners (the messages left wait for it). */
  resume(): Promise<void>;
  onResume(listener: () => void): void;
  /**
   * The notice a conversation gets once a day when a cap of `turn`'s (its own, or its person's)
   * has passed `budgets.warnAt` of itself; undefined when none is due.
   */
  warning(turn: TurnContext): Promise<string | undefined>;
}

/** A model call refused because an admin paused them all; the turn's messages wait for the resume. */
export class SpendingPausedError extends BudgetExhaustedError {
  constructor() {
    super('Model calls are paused by an admin (/budget pause): this message is answered once they resume.', { paused: true });
  }
}

/** Where the kill switch is kept. */
const pausedKey = 'budget-paused';

/**
 * The gateway's gate: a spend book over `store`, the caps of `budgets` as configured now, and its
 * kill switch. On resume, `answerLeft` answers the messages the pause left waiting: the gateway's
 * waits until the turns the pause stopped have ended (each leaves its messages as it ends), else a
 * turn ending just after the resume would leave its message until the next restart.
 */
export function gatewaySpendGate(store: Pick<Store, 'get' | 'set' | 'delete'>, budgets: (profile?: string) => BudgetsConfig, log: (line: string) => void, answerLeft?: () => Promise<void>): GatewaySpending {
  const book = new SpendBook({ store, log });
  const gate = budgetGate(book, budgets);
  const listeners: (() => void)[] = [];
  if (answerLeft) listeners.push(() => void answerLeft().catch((error: unknown) => log(`messages left while model calls were paused not answered: ${errorMessage(error)}`)));
  let paused = false;
  return {
    book,
    budgets,
    get paused() {
      return paused;
    },
    async reserve(request, turn) {
      if (paused) throw new SpendingPausedError();
      return gate.reserve(request, turn);
    },
    async load() {
      paused = (await store.get<unknown>(pausedKey)) === true;
    },
    async pause() {
      await store.set(pausedKey, true);
      paused = true;
    },
    async resume() {
      await store.delete(pausedKey);
      paused = false;
      for (const listener of listeners) listener();
    },
    onResume: (listener) => void listeners.push(listener),
    async warning(turn) {
      const { warnAt } = budgets(turn.profile);
      for (const line of spendLines(budgets(turn.profile), turn)) {
        if (line.scope === 'gateway' || line.cap <= 0) continue;
        const spent = await book.spent(line.scope, line.period);
        if (spent < warnAt * line.cap) continue;
        // Once a period per cap: kept in the store, so a restart does not say it again.
        const key = `budget-warned:${keySegment(line.scope)}:${periodOf(line.period, new Date())}`;
        if ((await store.get<unknown>(key)) === true) continue;
        await store.set(key, true);
        const whose = line.scope.startsWith('person ') ? 'You have' : 'This conversation has';
        return `Heads-up: ${whose} spent ${dollars(spent)} of ${line.scope.startsWith('person ') ? 'your' : 'its'} ${dollars(line.cap)} ${line.period === 'day' ? 'daily' : 'monthly'} cap (${Math.round((spent / line.cap) * 100)}%); at the cap I stop answering until it resets (/budget shows it).`;
      }
      return undefined;
    },
  };
}

/** `/budget pause|resume` (admins), or `/budget`: what is spent here. */
export async function budgetCommand(spending: GatewaySpending, args: string, turn: TurnContext): Promise<string> {
  const verb = args.trim();
  if (verb === '') return (spending.paused ? 'Model calls are paused (/budget resume lets them go on).\n' : '') + (await budgetReport(spending, turn));
  if (verb !== 'pause' && verb !== 'resume') return 'Usage: /budget [pause | resume]';
  if (!turn.admin) return 'Only an admin can pause or resume model calls.';
  if (verb === 'pause') {
    await spending.pause();
    return 'Paused all model calls: running turns stop at their next call, and messages wait until /budget resume.';
  }
  await spending.resume();
  return 'Model calls go on; the messages that waited are answered now.';
}

/** `/budget`: what is spent today against the caps of `turn`'s seat (the gateway's for admins). */
export async function budgetReport(spending: GatewaySpending, turn: TurnContext): Promise<string> {
  const budgets = spending.budgets(turn.profile);
  const lines = spendLines(budgets, turn);
  const shown = turn.admin ? lines : lines.filter((line) => line.scope !== 'gateway');
  const words = (scope: string) => (scope === 'gateway' ? 'the gateway' : scope.startsWith('person ') ? `you (${scope.slice(7)})` : 'this conversation');
  const rows = await Promise.all(shown.map(async (line) => `- ${words(line.scope)}: ${dollars(await spending.book.spent(line.scope, line.period))} of ${dollars(line.cap)} this ${line.period}`));
  if (rows.length === 0) return 'No spending cap applies here (see docs/budgets.md).';
  return ['Spending (UTC):', ...rows].join('\n');
}

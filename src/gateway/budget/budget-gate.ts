/**
 * Spending caps, checked before every model call (the `SpendGate` the gateway's agents get). A call
 * counts for its person (unless an admin, with no cap set for admins), its conversation and the
 * gateway, and for the scheduled job or pipeline run it works in; its worst case (the request's input at the full input price, about four characters a
 * token, and its `max_tokens` at the output price) is reserved on each; one that does not fit is
 * refused before it goes out, with which cap, what was spent and when it resets; once answered the
 * call is settled at its real cost, and counted in the gateway's day and month even where no cap
 * is set on them. A model without prices in the catalog costs nothing here.
 */
import type { SpendGate, SpendTicket } from '../../agent/spend-gate.ts';
import { BudgetExhaustedError } from '../../core/errors.ts';
import { getModelInfo, type ModelInfo } from '../../llm/catalog.ts';
import { computeCost } from '../../llm/cost.ts';
import type { ModelRequest } from '../../llm/types.ts';
import type { TurnContext } from '../../tools/tool.ts';
import { isDirectChannel } from '../../resources/memory-layers.ts';
import { defaultBudgets, type BudgetsConfig } from '../config/budget-schema.ts';
import type { SpendBook, SpendLine, SpendPeriod, SpendRefusal } from './spend-book.ts';

/**
 * What the gate reserves on: the gateway's {@link SpendBook}, or on Workers the bot's spend object
 * reached over RPC (`src/worker/worker-spending.ts`), which keeps a book of its own.
 */
export type SpendLedger = Pick<SpendBook, 'reserve'>;

/** The providers' cap on a default `max_tokens` from the catalog (see `anthropic-request.ts`). */
const defaultMaxTokensCap = 32_000;

/** The caps a call of `turn` counts against. */
export function spendLines(budgets: BudgetsConfig, turn: TurnContext | undefined): SpendLine[] {
  const lines: SpendLine[] = [];
  if (budgets.gateway.day !== undefined) lines.push({ scope: 'gateway', period: 'day', cap: budgets.gateway.day });
  if (budgets.gateway.month !== undefined) lines.push({ scope: 'gateway', period: 'month', cap: budgets.gateway.month });
  if (!turn) return lines;
  const conversationCap = conversationDayCap(budgets, turn.sessionKey);
  if (conversationCap !== undefined) lines.push({ scope: `conversation ${turn.sessionKey}`, period: 'day', cap: conversationCap });
  // Admins have no person cap: the gateway's caps bound them.
  if (!turn.admin) lines.push({ scope: `person ${turn.platform}:${turn.senderId}`, period: 'day', cap: budgets.person.day ?? defaultBudgets.personDay });
  if (turn.job) {
    // Counted with no cap too (an endless one): a job's spend today and per run is what `/schedule`
    // shows and what its next runs are estimated from (see `job-budget.ts`).
    lines.push({ scope: jobScope(turn.job.id), period: 'day', cap: budgets.job.day ?? Infinity });
    lines.push({ scope: jobScope(turn.job.id, turn.job.run), period: 'run', cap: budgets.job.run ?? Infinity });
  }
  if (turn.pipelineRun !== undefined && budgets.pipelineRun.run !== undefined) lines.push(pipelineRunLine(turn.pipelineRun, budgets.pipelineRun.run));
  return lines;
}

/** The daily cap of the conversation `sessionKey`: as configured, else the default for a group; undefined for none. */
export function conversationDayCap(budgets: BudgetsConfig, sessionKey: string): number | undefined {
  return budgets.conversation.day ?? (isDirectChannel(sessionKey) ? undefined : defaultBudgets.groupDay);
}

/**
 * The lines a call is reserved on: its caps, and the gateway's day and month without a cap where
 * none is set, so that what the gateway spends is always in the book (`operator budget status`,
 * the console, `operator_spend_usd_total{scope="gateway"}`), capped or not. A line without a cap
 * never refuses.
 */
export function countedLines(lines: readonly SpendLine[]): SpendLine[] {
  const uncapped = (['day', 'month'] as const).filter((period) => !lines.some((line) => line.scope === 'gateway' && line.period === period));
  return [...lines, ...uncapped.map((period) => ({ scope: 'gateway', period, cap: Number.POSITIVE_INFINITY }))];
}

/** The scope of job `id`'s spend (its day's), or of its run `run`: `job k3v9x2ab`, `job k3v9x2ab run 2026-11-30T09:00:00.000Z`. */
export function jobScope(id: string, run?: string): string {
  return run === undefined ? `job ${id}` : `job ${id} run ${run}`;
}

/** The cap of pipeline run `runId`, all its nodes' calls together. */
export function pipelineRunLine(runId: string, cap: number): SpendLine {
  return { scope: `pipeline run ${runId}`, period: 'run', cap };
}

/** What kind of cap a line's scope is, for metrics and the words people read. */
export type SpendScopeKind = 'gateway' | 'conversation' | 'person' | 'job' | 'pipeline';

/** The kind of `scope` (`person telegram:7` is a person's). */
export function scopeKind(scope: string): SpendScopeKind {
  const word = scope.split(' ', 1)[0];
  return word === 'person' || word === 'conversation' || word === 'job' || word === 'pipeline' ? word : 'gateway';
}

/** The most `request` can cost, in dollars: all its input uncached, all of `max_tokens` written. */
export function worstCaseCost(request: ModelRequest, info: ModelInfo | undefined): number {
  if (!info) return 0;
  let characters = request.systemPrompt.length + JSON.stringify(request.ephemeral ?? []).length;
  for (const part of [...request.messages, ...(request.tools ?? [])]) characters += sizeOf(part);
  const output = request.maxTokens ?? Math.min(info.maxOutput, defaultMaxTokensCap);
  return computeCost({ input: Math.ceil(characters / 4), output, cacheRead: 0, cacheWrite: 0 }, info).total;
}

/**
 * Characters of `part` as JSON, measured once per object: a conversation's messages and its tools'
 * definitions are the same objects call after call (the lists holding them are not), and serializing all of them again for every call
 * cost more than the rest of the check (a long session's history is most of a request).
 */
function sizeOf(part: object): number {
  let size = measured.get(part);
  if (size === undefined) {
    size = JSON.stringify(part).length;
    measured.set(part, size);
  }
  return size;
}
const measured = new WeakMap<object, number>();

/** The refusal's words: which cap, what was spent, when it resets. */
export function refusalText(refusal: SpendRefusal, now: Date): string {
  const { line } = refusal;
  const spent = `(${dollars(refusal.spent)} spent, ${dollars(refusal.reserved)} in calls under way)`;
  const kind = scopeKind(line.scope);
  if (line.period === 'run') return `${kind === 'job' ? "this job run's" : "this pipeline run's"} spending cap of ${dollars(line.cap)} is reached ${spent}.`;
  const what = { gateway: "the gateway's", person: "this person's", conversation: "this conversation's", job: "this job's", pipeline: "this pipeline's" }[kind];
  return `${what} spending cap of ${dollars(line.cap)} a ${line.period} is reached ${spent}; it resets at ${resetTime(line.period, now)} UTC.`;
}

/** When a day's or a month's cap starts again after `now`: `2026-12-01 00:00`. */
export function resetTime(period: 'day' | 'month', now: Date): string {
  const reset = new Date(now);
  if (period === 'day') reset.setUTCHours(24, 0, 0, 0);
  else {
    reset.setUTCMonth(reset.getUTCMonth() + 1, 1);
    reset.setUTCHours(0, 0, 0, 0);
  }
  return reset.toISOString().slice(0, 16).replace('T', ' ');
}

/** Dollars as people read them: cents from a dollar up (and for nothing), four places below. */
export function dollars(value: number): string {
  return value === 0 || value >= 1 ? `$${value.toFixed(2)}` : `$${value.toFixed(4)}`;
}

/** What the gate reports, for metrics: a call refused at a cap, and a call's cost on the caps it counted for. */
export type SpendReport = { type: 'refused'; scope: SpendScopeKind; period: SpendPeriod; cap: number } | { type: 'spent'; scopes: SpendScopeKind[]; costUsd: number };

/** Options of {@link budgetGate}. */
export interface BudgetGateOptions {
  now?: () => Date;
  report?: (report: SpendReport) => void;
  /** The scopes whose caps `turn` may pass (an admin allowed it one more turn). */
  exempt?: (turn: TurnContext) => ReadonlySet<string> | undefined;
  /** The caps a call of `turn` counts against, instead of {@link spendLines}' (the terminal's pipeline run: its own cap alone). */
  lines?: (turn: TurnContext | undefined) => SpendLine[];
}

/** A reservation in dollars, settled at the real cost (0 when nothing was spent). */
export interface CostHold {
  settle(actualUsd: number): void;
}

/** What reserves spend that is not a model request (a recording's transcription) on a turn's caps. */
export interface CostGate {
  /**
   * Reserves `worstCaseUsd` on every cap of `turn`, or rejects with a `BudgetExhaustedError` whose
   * message begins with `refused` (`Not transcribed`), as a model call's begins `Not answered`.
   */
  reserveCost(turn: TurnContext | undefined, worstCaseUsd: number, refused: string): Promise<CostHold>;
}

/** The gateway's gate over `book`, with the caps of `budgets`: model calls, and other spend in dollars. */
export function budgetGate(book: SpendLedger, budgets: (profile?: string) => BudgetsConfig, options: BudgetGateOptions = {}): SpendGate & CostGate {
  const now = options.now ?? (() => new Date());
  const reserveCost = async (turn: TurnContext | undefined, amount: number, refused: string): Promise<CostHold> => {
    const lines = options.lines?.(turn) ?? countedLines(spendLines(budgets(turn?.profile), turn));
    if (lines.length === 0) return { settle: () => {} };
    const held = await book.reserve(lines, amount, turn && options.exempt?.(turn));
    if (!('settle' in held)) {
      options.report?.({ type: 'refused', scope: scopeKind(held.line.scope), period: held.line.period, cap: held.line.cap });
      throw new BudgetExhaustedError(`${refused}: ${refusalText(held, now())}`, { scope: held.line.scope, period: held.line.period, cap: held.line.cap, spent: held.spent });
    }
    return {
      settle: (cost) => {
        held.settle(cost);
        if (cost > 0) options.report?.({ type: 'spent', scopes: [...new Set(lines.map((line) => scopeKind(line.scope)))], costUsd: cost });
      },
    };
  };
  return {
    reserveCost,
    async reserve(request, turn): Promise<SpendTicket> {
      const info = getModelInfo(request.model);
      if (!info) return { settle: () => {} };
      const held = await reserveCost(turn, worstCaseCost(request, info), 'Not answered');
      return { settle: (usage) => held.settle(usage ? computeCost(usage, info).total : 0) };
    },
  };
}

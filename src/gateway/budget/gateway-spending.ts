/**
 * The gateway's spending: the gate every agent's model calls pass (see `budget-gate.ts`), the book
 * `/budget` reads, the kill switch (`/budget pause`, kept in the store), the notice near a cap,
 * the turns an admin let pass a cap once, and the scheduled jobs' spending (`job-spending.ts`).
 */
import { errorMessage } from '../../core/errors.ts';
import type { SpendGate } from '../../agent/spend-gate.ts';
import type { Runtime } from '../../runtime/runtime.ts';
import type { TurnContext } from '../../tools/tool.ts';
import type { Store } from '../../store/store.ts';
import type { OpsEvent } from '../ops/ops-events.ts';
import type { BudgetsConfig } from '../config/budget-schema.ts';
import { budgetGate, type CostGate, type SpendReport } from './budget-gate.ts';
import { SpendAsks, type SpendAsksOptions } from './spend-asks.ts';
import { conversationModel, JobSpending } from './job-spending.ts';
import { SpendBook } from './spend-book.ts';
import { warnedKey, warningDue, warningText, watchedLines } from './spend-warning.ts';
import { pausedKey, SpendingPausedError } from './spending-paused.ts';

/** The gateway's spending: its gate, the book `/budget` reads, and the kill switch. */
export interface GatewaySpending extends SpendGate, CostGate {
  book: SpendBook;
  /** The scheduled jobs' spending: estimates, spend per job, whether a due run may start. */
  jobs: JobSpending;
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
  /** Lets the turn `turnId` pass the caps of `scopes` (an admin's "one more turn"), for an hour at most. */
  allowTurn(turnId: string, scopes: readonly string[]): void;
  /** The questions refused turns put to the admins (when the gateway can reach them). */
  readonly asks?: SpendAsks;
}

/** Options of {@link gatewaySpendGate}. */
export interface GatewaySpendOptions {
  store: Pick<Store, 'get' | 'set' | 'delete' | 'append' | 'readLog' | 'deleteLog'>;
  /** The caps of `profile`'s conversations, as configured now. */
  budgets: (profile?: string) => BudgetsConfig;
  log: (line: string) => void;
  /**
   * Answers the messages the pause left waiting, on resume: the gateway's waits until the turns the
   * pause stopped have ended (each leaves its messages as it ends), else a turn ending just after the
   * resume would leave its message until the next restart.
   */
  answerLeft?: () => Promise<void>;
  /** What the gate reports, and the kill switch's changes (`paused`). */
  report?: (report: SpendReport | { type: 'paused'; paused: boolean }) => void;
  /** How refused turns reach the admins and are answered again (see `spend-asks.ts`); unset: nobody is asked. */
  asks?: Pick<SpendAsksOptions, 'copies' | 'resubmit' | 'tell'>;
  /** The clock (tests); the real one by default. */
  now?: () => Date;
  /** The models conversations use, for the jobs' estimates (unset: none priced). */
  models?: Pick<Runtime, 'client' | 'clientFor'>;
}

/** How long an admin's "one more turn" waits for its turn to use it. */
const passLifetimeMs = 60 * 60_000;

/** The gateway's gate: a spend book over the store, the caps as configured now, and its kill switch. */
export function gatewaySpendGate(options: GatewaySpendOptions): GatewaySpending {
  const { store, budgets, log, answerLeft, now } = options;
  const book = new SpendBook({ store, log, now });
  const passes = new Map<string, { scopes: ReadonlySet<string>; until: number }>();
  const exempt = (turn: TurnContext) => {
    const pass = turn.turnId === undefined ? undefined : passes.get(turn.turnId);
    return pass && pass.until > Date.now() ? pass.scopes : undefined;
  };
  const gate = budgetGate(book, budgets, { report: options.report, exempt, now });
  const listeners: (() => void)[] = [];
  if (answerLeft) listeners.push(() => void answerLeft().catch((error: unknown) => log(`messages left while model calls were paused not answered: ${errorMessage(error)}`)));
  let paused = false;
  let asks: SpendAsks | undefined;
  const { models } = options;
  const model = models ? conversationModel(store, (spec) => (spec === undefined ? models.client.info : models.clientFor(spec).info)) : async () => undefined;
  const spending: GatewaySpending = {
    book,
    jobs: new JobSpending({ book, store, budgets, model, log }),
    budgets,
    get paused() {
      return paused;
    },
    get asks() {
      return asks;
    },
    async reserve(request, turn) {
      if (paused) throw new SpendingPausedError();
      return gate.reserve(request, turn);
    },
    async reserveCost(turn, worstCaseUsd, refused) {
      if (paused) throw new SpendingPausedError();
      return gate.reserveCost(turn, worstCaseUsd, refused);
    },
    async load() {
      paused = (await store.get<unknown>(pausedKey)) === true;
    },
    async pause() {
      await store.set(pausedKey, true);
      paused = true;
      options.report?.({ type: 'paused', paused: true });
    },
    async resume() {
      await store.delete(pausedKey);
      paused = false;
      options.report?.({ type: 'paused', paused: false });
      for (const listener of listeners) listener();
    },
    onResume: (listener) => void listeners.push(listener),
    allowTurn(turnId, scopes) {
      const now = Date.now();
      for (const [id, pass] of passes) if (pass.until <= now) passes.delete(id);
      passes.set(turnId, { scopes: new Set(scopes), until: now + passLifetimeMs });
    },
    async warning(turn) {
      const { warnAt } = budgets(turn.profile);
      for (const line of watchedLines(budgets(turn.profile), turn)) {
        const spent = await book.spent(line.scope, line.period);
        if (!warningDue(line, spent, warnAt)) continue;
        // Once a period per cap: kept in the store, so a restart does not say it again.
        const key = warnedKey(line, now?.() ?? new Date());
        if ((await store.get<unknown>(key)) === true) continue;
        await store.set(key, true);
        return warningText(line, spent);
      }
      return undefined;
    },
  };
  if (options.asks) asks = new SpendAsks({ store, spending, log, now, ...options.asks });
  return spending;
}

/** The ops event of a gate's report (metrics count refusals and spend by kind of cap). */
export function spendEvent(report: SpendReport | { type: 'paused'; paused: boolean }): OpsEvent {
  if (report.type === 'paused') return { type: 'budget.paused', paused: report.paused };
  return report.type === 'refused' ? { type: 'budget.refused', scope: report.scope, period: report.period, capUsd: report.cap } : { type: 'budget.spent', scopes: report.scopes, costUsd: report.costUsd };
}

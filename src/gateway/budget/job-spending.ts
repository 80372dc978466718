/**
 * Scheduled jobs' spending, over the spend book (see `job-budget.ts` for the estimate and the
 * rule): what a new job is expected to cost, what each job spent today and per run (for
 * `/schedule` and `operator schedule list`), whether a due run may start under the job caps, and
 * what a run cost once it ended (kept with the job, `Job.spend`). A skipped run's conversation is
 * told once a UTC day per cap (kept in the store): the notice says the runs after it are skipped
 * too, so one job every five minutes does not say it a hundred times.
 */
import { errorMessage } from '../../core/errors.ts';
import type { ModelInfo } from '../../llm/catalog.ts';
import type { Store } from '../../store/store.ts';
import type { BudgetsConfig } from '../config/budget-schema.ts';
import { modelChoiceKey } from '../conversations.ts';
import { keySegment } from '../dedupe.ts';
import { jobLabel, type Job } from '../scheduler/job.ts';
import { dollars, jobScope } from './budget-gate.ts';
import { describeJobCost, estimateJob, jobSkip, type JobEstimate, type JobSkip } from './job-budget.ts';
import { periodOf, type SpendBook } from './spend-book.ts';

/** What {@link JobSpending} works over. */
export interface JobSpendingOptions {
  book: Pick<SpendBook, 'spent' | 'raised'>;
  store: Pick<Store, 'get' | 'set'>;
  /** The caps of `profile`'s jobs as configured now (its own where it sets them). */
  budgets: (profile?: string) => BudgetsConfig;
  /** The catalog entry of the model the conversation at `sessionKey` uses; undefined when it has no prices. */
  model: (sessionKey: string) => Promise<ModelInfo | undefined>;
  log: (line: string) => void;
  now?: () => Date;
}

/** A due run that may not start, and whether its conversation is to be told (not yet told today; see {@link JobSpending.told}). */
export type JobRunSkip = JobSkip & { tell: boolean };

/** The jobs' spending. */
export class JobSpending {
  readonly #options: JobSpendingOptions;

  constructor(options: JobSpendingOptions) {
    this.#options = options;
  }

  /** What `job` is expected to cost, and whether its model has prices at all. */
  async estimate(job: Job): Promise<JobEstimate & { priced: boolean }> {
    const info = await this.#options.model(job.target.sessionKey);
    return { ...estimateJob(job, info, this.#now().getTime()), priced: info !== undefined };
  }

  /** What creating `job` answers about its cost: the estimate per run and per day, and the job caps. */
  async created(job: Job): Promise<string> {
    const estimate = await this.estimate(job);
    return describeJobCost(estimate, this.#options.budgets(job.profile).job, estimate.priced);
  }

  /** Dollars job `id` spent this UTC day. */
  spentToday(id: string): Promise<number> {
    return this.#options.book.spent(jobScope(id), 'day');
  }

  /** `spent today $0.0315; $0.0105 a run (3 runs)`, for a listing. */
  async describe(job: Job): Promise<string> {
    const today = `spent today ${dollars(await this.spentToday(job.id))}`;
    const runs = job.spend?.runs ?? 0;
    return runs > 0 ? `${today}, ${dollars(job.spend!.usd / runs)} a run on average (${runs === 1 ? '1 run' : `${runs} runs`})` : today;
  }

  /** Each of `jobs`' {@link describe}, by id (a job whose spend cannot be read is left out, and logged). */
  async describeAll(jobs: readonly Job[]): Promise<Map<string, string>> {
    const described = await Promise.all(jobs.map(async (job) => [job.id, await this.describe(job).catch((error: unknown) => void this.#options.log(`job ${job.id}: spend not read: ${errorMessage(error)}`))] as const));
    return new Map(described.filter((entry): entry is readonly [string, string] => entry[1] !== undefined));
  }

  /** Whether a due run of `job` may start under the job caps: undefined when it may, else why not. */
  async check(job: Job): Promise<JobRunSkip | undefined> {
    const caps = this.#options.budgets(job.profile).job;
    if (caps.run === undefined && caps.day === undefined) return undefined;
    const now = this.#now();
    const [estimate, spent, raised] = await Promise.all([this.estimate(job), this.spentToday(job.id), this.#options.book.raised(jobScope(job.id), 'day')]);
    // A model without prices costs nothing here, as for every call (see `budget-gate.ts`).
    if (!estimate.priced) return undefined;
    const skip = jobSkip(jobLabel(job), estimate, spent, { run: caps.run, day: caps.day === undefined ? undefined : caps.day + raised }, now);
    if (!skip) return undefined;
    return { ...skip, tell: !(await this.#told(job.id, skip.cap, now)) };
  }

  /** Notes that a skip of job `id` at `cap` was told today: its later skips today are not told again. */
  async told(id: string, cap: JobSkip['cap']): Promise<void> {
    await this.#options.store.set(toldKey(id, cap, this.#now()), true);
  }

  /** What run `run` of job `id` spent (its turn's calls, counted in this process). */
  runCost(id: string, run: string): Promise<number> {
    return this.#options.book.spent(jobScope(id, run), 'run');
  }

  /** Whether a skip of job `id` at `cap` was told today (a store that cannot say: no, better told twice). */
  async #told(id: string, cap: string, now: Date): Promise<boolean> {
    try {
      return (await this.#options.store.get<unknown>(toldKey(id, cap, now))) === true;
    } catch (error) {
      this.#options.log(`job ${id}: whether its skip was told is not known: ${errorMessage(error)}`);
      return false;
    }
  }

  #now(): Date {
    return this.#options.now?.() ?? new Date();
  }
}

/** Where it is kept that a skip of job `id` at `cap` was told on `now`'s UTC day. */
function toldKey(id: string, cap: string, now: Date): string {
  return `budget-skip-told:${keySegment(id)}:${cap}:${periodOf('day', now)}`;
}

/**
 * The catalog entry of the model a conversation uses: its own choice (`/model`, kept in `store`),
 * else the configured one, each as `infoOf` resolves it (undefined for the configured one);
 * undefined for a model the catalog does not price, or one that cannot be resolved.
 */
export function conversationModel(store: Pick<Store, 'get'>, infoOf: (spec: string | undefined) => ModelInfo | undefined): (sessionKey: string) => Promise<ModelInfo | undefined> {
  return async (sessionKey) => {
    const chosen = await store.get<unknown>(modelChoiceKey(sessionKey));
    try {
      return infoOf(typeof chosen === 'string' ? chosen : undefined);
    } catch {
      return undefined;
    }
  };
}

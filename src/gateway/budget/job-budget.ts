/**
 * What a scheduled job is expected to cost, and whether its next run may start under the job's
 * caps (`budgets.job`). A run is estimated at the average of the job's measured runs; before it
 * has run, at one model call's worst case (the job's prompt as input, the model's whole
 * `max_tokens` as output), the least any run reserves for its first call. A run starts only if
 * the job's spend today plus the larger of the two stays within its day cap, and the larger of
 * the two within its per-run cap: a run with less room than one call's worst case could not make
 * its first call (every call reserves its worst case; see `budget-gate.ts`).
 */
import type { ModelInfo } from '../../llm/catalog.ts';
import type { BudgetsConfig } from '../config/budget-schema.ts';
import { nextRunAfter } from '../scheduler/next-run.ts';
import type { JobSchedule, JobSpend } from '../scheduler/job.ts';
import { dollars, resetTime, worstCaseCost } from './budget-gate.ts';

/** A job's expected cost. */
export interface JobEstimate {
  /** Dollars one run is expected to cost (0 for a model without prices). */
  perRun: number;
  /** Where `perRun` comes from: the average of `runs` measured runs, or one call's worst case. */
  basis: { average: number; runs: number } | 'one call';
  /** One model call's worst case: the least room a run needs to start. */
  firstCall: number;
  /** The most runs one UTC day holds over the coming week (1 for a job that runs once). */
  runsPerDay: number;
  /** `perRun` times `runsPerDay`. */
  perDay: number;
}

/** How many times of a cron job are looked at (a week of minutes): enough for any 5-field expression. */
const maxCronTimes = 7 * 24 * 60;
const dayMs = 86_400_000;

/** The worst case of one call whose input is `prompt` alone, priced by `info`; 0 without prices. */
export function oneCallCost(prompt: string, info: ModelInfo | undefined): number {
  if (!info) return 0;
  return worstCaseCost({ model: info.id, systemPrompt: '', messages: [{ role: 'user', content: [{ type: 'text', text: prompt }] }] }, info);
}

/** The expected cost of `job` on `info`'s model, seen at `now`. */
export function estimateJob(job: { prompt: string; schedule: JobSchedule; timezone: string; spend?: JobSpend }, info: ModelInfo | undefined, now: number): JobEstimate {
  const firstCall = oneCallCost(job.prompt, info);
  const measured = job.spend && job.spend.runs > 0 ? { average: job.spend.usd / job.spend.runs, runs: job.spend.runs } : undefined;
  const perRun = measured ? measured.average : firstCall;
  const runsPerDay = mostRunsInADay(job.schedule, job.timezone, now);
  return { perRun, basis: measured ?? 'one call', firstCall, runsPerDay, perDay: perRun * runsPerDay };
}

/**
 * The most runs `schedule` has in one UTC day (the days caps count in) over the week after `now`:
 * 1 for a one-shot job; for `every`, what its interval fits in a day; for `cron`, counted.
 */
export function mostRunsInADay(schedule: JobSchedule, timezone: string, now: number): number {
  if (schedule.kind === 'at') return 1;
  if (schedule.kind === 'every') return Math.max(1, Math.ceil(dayMs / schedule.everyMs));
  const perDay = new Map<string, number>();
  let at: number | null = now;
  for (let seen = 0; seen < maxCronTimes && at !== null; seen++) {
    at = nextRunAfter(schedule, timezone, at);
    if (at === null || at > now + 7 * dayMs) break;
    const day = new Date(at).toISOString().slice(0, 10);
    perDay.set(day, (perDay.get(day) ?? 0) + 1);
  }
  return Math.max(1, ...perDay.values());
}

/** A run that may not start: which cap, and what is said about it. */
export interface JobSkip {
  cap: 'run' | 'day';
  /** One line for the job's record (`/schedule`'s "last run skipped: ..."). */
  reason: string;
  /** The notice in the job's conversation, but for where the next run is said. */
  notice: string;
}

/**
 * Whether a run of job `label` may start, its job having spent `spentToday` (dollars, this UTC
 * day) with `estimate`, under `caps` (their raises for today included); undefined when it may.
 */
export function jobSkip(label: string, estimate: JobEstimate, spentToday: number, caps: BudgetsConfig['job'], now: Date): JobSkip | undefined {
  const { amount: needed, words } = runNeed(estimate);
  const expected = `a run is estimated at ${dollars(needed)} (${words})`;
  if (caps.run !== undefined && needed > caps.run) {
    return {
      cap: 'run',
      reason: `skipped: ${expected}, more than the job's cap of ${dollars(caps.run)} a run`,
      notice: `Skipped job ${label}: ${expected}, more than the cap of ${dollars(caps.run)} a run (budgets.job.run). Its runs are skipped until the cap is raised or the job's runs cost less.`,
    };
  }
  if (caps.day !== undefined && spentToday + needed > caps.day) {
    const spent = `the job has spent ${dollars(spentToday)} today of its ${dollars(caps.day)} a day`;
    return {
      cap: 'day',
      reason: `skipped: ${spent}, and ${expected}`,
      notice: `Skipped job ${label}: ${spent} (budgets.job.day), and ${expected}. Its runs are skipped until the cap resets at ${resetTime('day', now)} UTC.`,
    };
  }
  return undefined;
}

/** `the average of its 3 runs`, `one model call's worst case, until it has run`. */
export function describeBasis(estimate: JobEstimate): string {
  if (estimate.basis === 'one call') return "one model call's worst case, until it has run";
  return `the average of its ${estimate.basis.runs === 1 ? 'run' : `${estimate.basis.runs} runs`}`;
}

/** The room a run needs to start, and why: its estimate, or one call's worst case where that is more. */
function runNeed(estimate: JobEstimate): { amount: number; words: string } {
  if (estimate.firstCall > estimate.perRun) return { amount: estimate.firstCall, words: "one model call's worst case, the room its first call needs" };
  return { amount: estimate.perRun, words: describeBasis(estimate) };
}

/**
 * What creating a job answers about its cost: the estimate per run and per day, and the job caps
 * in force, with how many runs a day the day cap holds when it holds fewer than the job has.
 */
export function describeJobCost(estimate: JobEstimate, caps: BudgetsConfig['job'], priced: boolean): string {
  if (!priced) return "Its cost cannot be estimated: no prices are known for the conversation's model (spending caps count only models the catalog prices).";
  const perDay = estimate.runsPerDay === 1 ? 'at most one run a day' : `${dollars(estimate.perDay)} a day at up to ${estimate.runsPerDay} runs a day`;
  const parts = [`Estimated cost: ${dollars(estimate.perRun)} a run (${describeBasis(estimate)}), ${perDay}.`];
  const capWords = [caps.run === undefined ? undefined : `${dollars(caps.run)} a run`, caps.day === undefined ? undefined : `${dollars(caps.day)} a day`].filter((part) => part !== undefined);
  parts.push(capWords.length === 0 ? 'No job spending cap is set (budgets.job).' : `Job caps: ${capWords.join(', ')}.`);
  const { amount: needed } = runNeed(estimate);
  if (caps.run !== undefined && needed > caps.run) parts.push('At this estimate every run would pass the cap a run, and is skipped with a notice.');
  else if (caps.day !== undefined) {
    // Each run spends its estimate, and the last one needs its full room to start.
    const fit = needed > caps.day ? 0 : estimate.perRun > 0 ? Math.floor((caps.day - needed) / estimate.perRun) + 1 : Infinity;
    if (fit < estimate.runsPerDay) parts.push(`At this estimate the day cap holds ${fit === 0 ? 'no run' : fit === 1 ? 'one run' : `${fit} runs`} a day; the others are skipped with a notice.`);
  }
  return parts.join(' ');
}

/**
 * Scheduled jobs' spending: a job's estimate (one call's worst case until it has run, then the
 * average of its runs), its runs in a UTC day, the rule that skips a run under the job caps (the
 * day's spend plus the larger of the estimate and one call's worst case), what creating a job
 * says, and the gateway's side over the real spend book: the job's turns count for its lines even
 * with no cap, a skip is told once a day per cap, and `/schedule`'s spend line.
 */
import { describe, expect, it } from 'vitest';
import { getModelInfo } from '../../src/llm/catalog.ts';
import { budgetGate, spendLines } from '../../src/gateway/budget/budget-gate.ts';
import { describeJobCost, estimateJob, jobSkip, mostRunsInADay, oneCallCost, type JobEstimate } from '../../src/gateway/budget/job-budget.ts';
import { JobSpending } from '../../src/gateway/budget/job-spending.ts';
import { SpendBook } from '../../src/gateway/budget/spend-book.ts';
import { budgetsFor, budgetsSchema, profileBudgetsSchema } from '../../src/gateway/config/budget-schema.ts';
import type { Job } from '../../src/gateway/scheduler/index.ts';
import { createStore } from '../../src/store/unstorage-store.ts';
import type { TurnContext } from '../../src/tools/tool.ts';

const sonnet = getModelInfo('claude-sonnet-4-6')!;
const now = Date.parse('2026-11-24T12:00:00Z');
const log = () => {};

/** A job as the scheduler keeps it. */
function jobOf(fields: Partial<Job> = {}): Job {
  return {
    id: 'k3v9x2ab',
    name: 'digest',
    prompt: 'Summarise the day.',
    schedule: { kind: 'every', everyMs: 3_600_000, anchor: now },
    timezone: 'UTC',
    target: { sessionKey: 'telegram:dm:7', address: { platform: 'telegram', conversationId: '7' }, scope: 'dm' },
    creator: { id: '7' },
    profile: 'default',
    runs: 0,
    missed: 'run_once',
    state: 'active',
    nextRunAt: now + 3_600_000,
    consecutiveFailures: 0,
    createdAt: now,
    ...fields,
  };
}

describe("a job's estimate", () => {
  it("is one call's worst case until the job has run, then the average of its runs", () => {
    // 32,000 output tokens at $15 a million, and the prompt's few tokens at $3.
    const firstCall = oneCallCost('Summarise the day.', sonnet);
    expect(firstCall).toBeGreaterThan(0.48);
    expect(firstCall).toBeLessThan(0.481);
    expect(estimateJob(jobOf(), sonnet, now)).toEqual({ perRun: firstCall, basis: 'one call', firstCall, runsPerDay: 24, perDay: firstCall * 24 });
    const measured = estimateJob(jobOf({ spend: { runs: 4, usd: 0.2 } }), sonnet, now);
    expect(measured).toMatchObject({ perRun: 0.05, basis: { average: 0.05, runs: 4 }, perDay: 0.05 * 24 });
    // A model without prices costs nothing here.
    expect(estimateJob(jobOf(), undefined, now)).toMatchObject({ perRun: 0, firstCall: 0, perDay: 0 });
  });

  it('counts the most runs one UTC day holds over the coming week', () => {
    expect(mostRunsInADay({ kind: 'at', at: now + 60_000 }, 'UTC', now)).toBe(1);
    expect(mostRunsInADay({ kind: 'every', everyMs: 5 * 60_000, anchor: now }, 'UTC', now)).toBe(288);
    expect(mostRunsInADay({ kind: 'every', everyMs: 7 * 3_600_000, anchor: now }, 'UTC', now)).toBe(4);
    expect(mostRunsInADay({ kind: 'every', everyMs: 2 * 86_400_000, anchor: now }, 'UTC', now)).toBe(1);
    expect(mostRunsInADay({ kind: 'cron', expression: '0 9,17 * * 1-5' }, 'Europe/Berlin', now)).toBe(2);
    // Mondays only: one run on the one day that has any.
    expect(mostRunsInADay({ kind: 'cron', expression: '0 9 * * 1' }, 'UTC', now)).toBe(1);
    expect(mostRunsInADay({ kind: 'cron', expression: '*/15 * * * *' }, 'UTC', now)).toBe(96);
  });
});

describe('whether a run may start', () => {
  const estimate = (perRun: number, firstCall: number): JobEstimate => ({ perRun, basis: perRun === firstCall ? 'one call' : { average: perRun, runs: 3 }, firstCall, runsPerDay: 24, perDay: perRun * 24 });
  const at = new Date(now);

  it('starts when no job cap is set, or the caps have room for the run', () => {
    expect(jobSkip('k3v9x2ab', estimate(0.3, 0.3), 5, {}, at)).toBeUndefined();
    expect(jobSkip('k3v9x2ab', estimate(0.3, 0.3), 0.7, { day: 1, run: 0.3 }, at)).toBeUndefined();
  });

  it("is skipped when the day's spend and the run would pass the day cap, saying what was spent and when it resets", () => {
    expect(jobSkip('"digest" (k3v9x2ab)', estimate(0.3, 0.1), 0.8, { day: 1 }, at)).toEqual({
      cap: 'day',
      reason: 'skipped: the job has spent $0.8000 today of its $1.00 a day, and a run is estimated at $0.3000 (the average of its 3 runs)',
      notice: 'Skipped job "digest" (k3v9x2ab): the job has spent $0.8000 today of its $1.00 a day (budgets.job.day), and a run is estimated at $0.3000 (the average of its 3 runs). Its runs are skipped until the cap resets at 2026-11-25 00:00 UTC.',
    });
  });

  it("needs room for one call's worst case even when its runs cost less on average (its first call reserves that much)", () => {
    const skip = jobSkip('k3v9x2ab', estimate(0.05, 0.48), 0.6, { day: 1 }, at);
    expect(skip?.reason).toBe("skipped: the job has spent $0.6000 today of its $1.00 a day, and a run is estimated at $0.4800 (one model call's worst case, the room its first call needs)");
    expect(jobSkip('k3v9x2ab', estimate(0.05, 0.48), 0.5, { day: 1 }, at)).toBeUndefined();
  });

  it('is skipped when the estimate alone passes the cap a run', () => {
    expect(jobSkip('k3v9x2ab', estimate(0.48, 0.48), 0, { run: 0.25, day: 10 }, at)).toEqual({
      cap: 'run',
      reason: "skipped: a run is estimated at $0.4800 (one model call's worst case, until it has run), more than the job's cap of $0.2500 a run",
      notice: "Skipped job k3v9x2ab: a run is estimated at $0.4800 (one model call's worst case, until it has run), more than the cap of $0.2500 a run (budgets.job.run). Its runs are skipped until the cap is raised or the job's runs cost less.",
    });
  });
});

describe('what creating a job says of its cost', () => {
  it('gives the estimate a run and a day, the caps in force, and how many runs the day cap holds', () => {
    const first = estimateJob(jobOf(), sonnet, now);
    expect(describeJobCost(first, {}, true)).toBe(
      "Estimated cost: $0.4801 a run (one model call's worst case, until it has run), $11.52 a day at up to 24 runs a day. No job spending cap is set (budgets.job).",
    );
    expect(describeJobCost(first, { day: 2, run: 1 }, true)).toBe(
      "Estimated cost: $0.4801 a run (one model call's worst case, until it has run), $11.52 a day at up to 24 runs a day. Job caps: $1.00 a run, $2.00 a day. At this estimate the day cap holds 4 runs a day; the others are skipped with a notice.",
    );
    expect(describeJobCost(first, { run: 0.1 }, true)).toMatch(/Job caps: \$0\.1000 a run\. At this estimate every run would pass the cap a run, and is skipped with a notice\.$/);
    const once = estimateJob(jobOf({ schedule: { kind: 'at', at: now + 60_000 } }), sonnet, now);
    expect(describeJobCost(once, { day: 5 }, true)).toBe("Estimated cost: $0.4801 a run (one model call's worst case, until it has run), at most one run a day. Job caps: $5.00 a day.");
    expect(describeJobCost(estimateJob(jobOf(), undefined, now), { day: 5 }, false)).toBe("Its cost cannot be estimated: no prices are known for the conversation's model (spending caps count only models the catalog prices).");
  });
});

describe("the gateway's side", () => {
  const turn: TurnContext = { sessionKey: 'telegram:dm:7', platform: 'telegram', senderId: '7', admin: true, scheduled: true, job: { id: 'k3v9x2ab', run: '2026-11-24T12:00:00.000Z' } };

  it("counts a job's turns for its day and its run even with no job cap, and caps them where set", () => {
    expect(spendLines(budgetsSchema.parse({}), turn)).toEqual([
      { scope: 'job k3v9x2ab', period: 'day', cap: Infinity },
      { scope: 'job k3v9x2ab run 2026-11-24T12:00:00.000Z', period: 'run', cap: Infinity },
    ]);
    expect(spendLines(budgetsSchema.parse({ job: { day: 2, run: 0.5 } }), turn)).toEqual([
      { scope: 'job k3v9x2ab', period: 'day', cap: 2 },
      { scope: 'job k3v9x2ab run 2026-11-24T12:00:00.000Z', period: 'run', cap: 0.5 },
    ]);
  });

  it("skips a run past the day cap (an admin's raise counted), telling the conversation once a day per cap, and lists the job's spend", async () => {
    const store = createStore({ driver: 'memory' });
    let clock = new Date(now);
    const book = new SpendBook({ store, log, now: () => clock });
    let budgets = budgetsSchema.parse({ job: { day: 1 } });
    const jobs = new JobSpending({ book, store, budgets: () => budgets, model: async () => sonnet, log, now: () => clock });
    const job = jobOf({ spend: { runs: 2, usd: 0.6 } });
    expect(await jobs.check(job)).toBeUndefined();
    // The job's run spends through the gate as its turn would: $0.3 + $0.45 = $0.75 today.
    const ticket = await budgetGate(book, () => budgets, { now: () => clock }).reserve({ model: 'claude-sonnet-4-6', systemPrompt: '', messages: [], maxTokens: 1_000 }, turn);
    ticket.settle({ input: 100_000, output: 30_000, cacheRead: 0, cacheWrite: 0 });
    expect(await jobs.runCost('k3v9x2ab', '2026-11-24T12:00:00.000Z')).toBeCloseTo(0.75);
    expect(await jobs.describe(job)).toBe('spent today $0.7500, $0.3000 a run on average (2 runs)');
    const skip = await jobs.check(job);
    expect(skip).toMatchObject({ cap: 'day', tell: true });
    expect(skip?.notice).toContain('the job has spent $0.7500 today of its $1.00 a day');
    // Until it was told (its notice sent), the next skip is to be told too.
    expect(await jobs.check(job)).toMatchObject({ cap: 'day', tell: true });
    await jobs.told(job.id, 'day');
    expect(await jobs.check(job)).toMatchObject({ cap: 'day', tell: false });
    // Told once per cap: the cap a run is another.
    budgets = budgetsSchema.parse({ job: { day: 1, run: 0.1 } });
    expect(await jobs.check(job)).toMatchObject({ cap: 'run', tell: true });
    budgets = budgetsSchema.parse({ job: { day: 1 } });
    await book.raise('job k3v9x2ab', 'day', 1);
    expect(await jobs.check(job)).toBeUndefined();
    // A new UTC day starts at nothing spent, and would be told again.
    clock = new Date('2026-11-25T00:00:01Z');
    expect(await jobs.describe(jobOf())).toBe('spent today $0.00');
    await book.raise('job k3v9x2ab', 'day', -1);
    expect(await jobs.check(jobOf({ spend: { runs: 1, usd: 1.5 } }))).toMatchObject({ cap: 'day', tell: true });
    expect(await new JobSpending({ book, store, budgets: () => budgets, model: async () => undefined, log }).created(job)).toMatch(/^Its cost cannot be estimated/);
  });

  it("holds a job to its profile's own job caps", async () => {
    const store = createStore({ driver: 'memory' });
    const book = new SpendBook({ store, log, now: () => new Date(now) });
    const top = budgetsSchema.parse({});
    const budgets = (profile?: string) => (profile === 'night' ? budgetsFor(top, profileBudgetsSchema.parse({ job: { run: 0.1 } })) : top);
    const jobs = new JobSpending({ book, store, budgets, model: async () => sonnet, log, now: () => new Date(now) });
    expect(await jobs.check(jobOf())).toBeUndefined();
    expect(await jobs.check({ ...jobOf(), profile: 'night' })).toMatchObject({ cap: 'run', tell: true });
  });
});

import { describe, expect, it } from 'vitest';
import { openJobStore, type RunOutcome } from '../../../src/gateway/scheduler/index.ts';
import { ada, Harness, newJob, start, storeKinds } from './harness.ts';

const minute = 60_000;

describe.each(storeKinds)('scheduler failures on the $name', (kind) => {
  it('tells the owner once at 3 failures in a row and pauses the job at 10', async () => {
    const { store } = await kind.open();
    const h = new Harness({ store, outcome: () => ({ status: 'error', error: 'model unavailable' }) });
    await h.scheduler.start();
    const { job } = await h.scheduler.create(newJob({ every: '5m', name: 'digest' }), ada);
    await h.advance(15 * minute);
    expect(h.runs).toHaveLength(3);
    expect(h.notices.map((notice) => notice.text)).toEqual([
      `Scheduled job "digest" (${job.id}) has failed 3 times in a row (last error: model unavailable). It keeps running; after 10 failures in a row it will be paused.`,
    ]);
    expect(h.notices[0]!.job.target).toEqual(job.target);

    await h.advance(35 * minute);
    expect(h.runs).toHaveLength(10);
    expect(h.notices).toHaveLength(2);
    expect(h.notices[1]!.text).toBe(
      `Scheduled job "digest" (${job.id}) has failed 10 times in a row and is now paused (last error: model unavailable). Resume it with "/schedule resume ${job.id}" once the cause is fixed.`,
    );
    expect(h.scheduler.get(job.id)).toMatchObject({
      state: 'paused',
      nextRunAt: null,
      consecutiveFailures: 10,
      pausedReason: 'paused after 10 failures in a row; last error: model unavailable',
    });
    await h.advance(60 * minute);
    expect(h.runs).toHaveLength(10);
  });

  it('starts the streak again after a success', async () => {
    const { store } = await kind.open();
    const results: RunOutcome[] = [
      { status: 'error', error: 'a' },
      { status: 'error', error: 'b' },
      { status: 'ok', delivery: { status: 'delivered' } },
      { status: 'error', error: 'c' },
      { status: 'error', error: 'd' },
    ];
    const h = new Harness({ store, outcome: () => results.shift()! });
    await h.scheduler.start();
    const { job } = await h.scheduler.create(newJob({ every: '5m' }), ada);
    await h.advance(25 * minute);
    expect(h.notices).toEqual([]);
    expect(h.scheduler.get(job.id)).toMatchObject({ consecutiveFailures: 2, lastStatus: 'error', lastError: 'd' });
  });

  it('records a run whose answer could not be delivered as an error, with the delivery failure', async () => {
    const { store } = await kind.open();
    const h = new Harness({ store, outcome: () => ({ status: 'ok', delivery: { status: 'failed', error: 'chat not found' } }) });
    await h.scheduler.start();
    const { job } = await h.scheduler.create(newJob({ delay_seconds: 60 }), ada);
    await h.advance(minute);
    expect(h.scheduler.get(job.id)).toMatchObject({
      state: 'done',
      lastStatus: 'error',
      lastError: 'the answer could not be delivered: chat not found',
      lastDelivery: { status: 'failed', error: 'chat not found', at: start + minute },
      consecutiveFailures: 1,
    });
  });

  it('records a run that threw as an error with its message', async () => {
    const { store } = await kind.open();
    const h = new Harness({
      store,
      outcome: () => {
        throw new Error('queue closed');
      },
    });
    await h.scheduler.start();
    const { job } = await h.scheduler.create(newJob({ delay_seconds: 60 }), ada);
    await h.advance(minute);
    expect(h.scheduler.get(job.id)).toMatchObject({ lastStatus: 'error', lastError: 'queue closed' });
    expect(h.scheduler.get(job.id)?.lastDelivery).toBeUndefined();
  });

  it('counts an interrupted run as a failure, telling the owner when it makes the third', async () => {
    const { store, reopen } = await kind.open();
    const first = new Harness({ store });
    await first.scheduler.load();
    const { job } = await first.scheduler.create(newJob({ every: '1h' }), ada);
    const jobs = await openJobStore(store);
    await jobs.put({ ...job, runs: 1, consecutiveFailures: 2, nextRunAt: start + 2 * 3_600_000, claim: { scheduledFor: start + 3_600_000, at: start + 3_600_000 } });

    const h = new Harness({ store: reopen() });
    h.clock.now = start + 3_600_000 + minute;
    await h.scheduler.start();
    await h.scheduler.idle();
    expect(h.runs).toEqual([]);
    expect(h.scheduler.get(job.id)).toMatchObject({ consecutiveFailures: 3, lastStatus: 'error', state: 'active' });
    expect(h.notices.map((notice) => notice.text)).toEqual([
      `Scheduled job ${job.id} has failed 3 times in a row (last error: interrupted: the gateway stopped during this run). It keeps running; after 10 failures in a row it will be paused.`,
    ]);
  });

  it('logs a notice that could not be sent and goes on', async () => {
    const { store } = await kind.open();
    const h = new Harness({ store, outcome: () => ({ status: 'error', error: 'boom' }), settings: { failureNoticeAfter: 1 } });
    await h.scheduler.start();
    const { job } = await h.scheduler.create(newJob({ every: '5m' }), ada);
    h.notices.push = () => {
      throw new Error('telegram down');
    };
    await h.advance(10 * minute);
    expect(h.lines).toContain(`schedule: job ${job.id}: could not notify its owner: telegram down`);
    expect(h.scheduler.get(job.id)?.runs).toBe(2);
  });
  it("counts neither a run skipped at a spending cap as a failure nor as one of repeat's runs, and adds a run's cost to the job's spend", async () => {
    const { store } = await kind.open();
    const results: RunOutcome[] = [
      { status: 'ok', delivery: { status: 'delivered' }, costUsd: 0.25 },
      { status: 'skipped', reason: 'skipped: the job has spent $1.00 today of its $1.00 a day' },
      { status: 'skipped', reason: 'skipped: the job has spent $1.00 today of its $1.00 a day' },
      { status: 'error', error: 'stopped at its cap', costUsd: 0.5 },
    ];
    const h = new Harness({ store, outcome: () => results.shift()! });
    await h.scheduler.start();
    const { job } = await h.scheduler.create(newJob({ every: '5m', repeat: 3 }), ada);
    await h.advance(5 * minute);
    expect(h.scheduler.get(job.id)).toMatchObject({ runs: 1, lastStatus: 'ok', spend: { runs: 1, usd: 0.25 } });
    await h.advance(10 * minute);
    expect(h.scheduler.get(job.id)).toMatchObject({ state: 'active', runs: 1, lastStatus: 'skipped', lastError: 'skipped: the job has spent $1.00 today of its $1.00 a day', consecutiveFailures: 0, nextRunAt: start + 20 * minute });
    await h.advance(5 * minute);
    expect(h.scheduler.get(job.id)).toMatchObject({ runs: 2, lastStatus: 'error', consecutiveFailures: 1, spend: { runs: 2, usd: 0.75 } });
    expect(h.notices).toEqual([]);
  });

  it('gives back the last run of repeat when it was skipped, and ends a one-shot job whose one run was', async () => {
    const { store } = await kind.open();
    const results: RunOutcome[] = [{ status: 'skipped', reason: 'over its cap' }, { status: 'ok', delivery: { status: 'delivered' } }];
    const h = new Harness({ store, outcome: () => results.shift() ?? { status: 'skipped', reason: 'over its cap' } });
    await h.scheduler.start();
    const { job } = await h.scheduler.create(newJob({ every: '5m', repeat: 1 }), ada);
    await h.advance(5 * minute);
    expect(h.scheduler.get(job.id)).toMatchObject({ state: 'active', runs: 0, nextRunAt: start + 10 * minute, lastStatus: 'skipped' });
    await h.advance(5 * minute);
    expect(h.scheduler.get(job.id)).toMatchObject({ state: 'done', runs: 1, lastStatus: 'ok' });
    const { job: once } = await h.scheduler.create(newJob({ delay_seconds: 60 }), ada);
    await h.advance(minute);
    expect(h.scheduler.get(once.id)).toMatchObject({ state: 'done', runs: 0, lastStatus: 'skipped', lastError: 'over its cap' });
  });
});

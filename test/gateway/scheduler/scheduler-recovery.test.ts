import { describe, expect, it } from 'vitest';
import type { NewJob, RunOutcome } from '../../../src/gateway/scheduler/index.ts';
import type { Store } from '../../../src/store/index.ts';
import { ada, Harness, newJob, start, storeKinds, type StoreKind } from './harness.ts';

const minute = 60_000;
const hour = 3_600_000;

/**
 * Creates jobs on a first scheduler, stops it, and starts a second one on the same store `downFor`
 * later, as a restart would. Returns the second harness and the jobs' ids.
 */
async function restartAfter(kind: StoreKind, jobs: NewJob[], downFor: number): Promise<{ after: Harness; ids: string[] }> {
  const { store, reopen } = await kind.open();
  const before = new Harness({ store });
  await before.scheduler.start();
  const ids: string[] = [];
  for (const job of jobs) ids.push((await before.scheduler.create(job, ada)).job.id);
  await before.scheduler.stop();
  const after = new Harness({ store: reopen() });
  after.clock.now = start + downFor;
  await after.scheduler.start();
  await after.scheduler.idle();
  return { after, ids };
}

describe.each(storeKinds)('scheduler recovery on the $name', (kind) => {
  it('fires a run missed within the grace window once at start-up', async () => {
    const { after, ids } = await restartAfter(kind, [newJob({ delay_seconds: 1800 })], 2 * hour);
    expect(after.runs.map((call) => [call.scheduledFor, call.at])).toEqual([[start + 30 * minute, start + 2 * hour]]);
    expect(after.scheduler.get(ids[0]!)).toMatchObject({ state: 'done', lastStatus: 'ok', lastRunAt: start + 2 * hour });
  });

  it('skips a run missed beyond the grace window and records why', async () => {
    const { after, ids } = await restartAfter(kind, [newJob({ delay_seconds: 1800 })], 7 * hour);
    expect(after.runs).toEqual([]);
    expect(after.scheduler.get(ids[0]!)).toMatchObject({
      state: 'done',
      nextRunAt: null,
      lastStatus: 'skipped',
      lastError: 'missed 2026-11-24T13:30:00+01:00 by 6h30m (the gateway was not running or the machine was asleep); more than the grace window of 6h',
    });
  });

  it('skips missed runs of a job whose policy is skip, and goes on at its next time', async () => {
    const { after, ids } = await restartAfter(kind, [newJob({ every: '1h', missed: 'skip' })], 2 * hour + 10 * minute);
    expect(after.runs).toEqual([]);
    expect(after.scheduler.get(ids[0]!)).toMatchObject({
      state: 'active',
      nextRunAt: start + 3 * hour,
      lastStatus: 'skipped',
      lastError: 'missed 2026-11-24T15:00:00+01:00 by 10m (the gateway was not running or the machine was asleep); its missed policy is skip',
    });
    await after.advance(hour);
    expect(after.runTimes(ids[0]!)).toEqual(['2026-11-24T15:00:00.000Z']);
  });

  it('runs a recurring job once for the most recent of several missed times, then stays on its grid', async () => {
    const { after, ids } = await restartAfter(kind, [newJob({ every: '1h' })], 5 * hour + 20 * minute);
    expect(after.runTimes(ids[0]!)).toEqual(['2026-11-24T17:00:00.000Z']);
    expect(after.lines).toContain(`schedule: job ${ids[0]}: skipped the times from 2026-11-24T14:00:00+01:00 to before 2026-11-24T18:00:00+01:00`);
    expect(after.scheduler.get(ids[0]!)).toMatchObject({ runs: 1, nextRunAt: start + 6 * hour });
    await after.advance(hour);
    expect(after.runTimes(ids[0]!)).toEqual(['2026-11-24T17:00:00.000Z', '2026-11-24T18:00:00.000Z']);
  });

  it('never runs again a time claimed by a process that died during the run', async () => {
    const { store, reopen } = await kind.open();
    const crashed = new Harness({ store, outcome: () => new Promise<RunOutcome>(() => {}) });
    await crashed.scheduler.start();
    const oneShot = (await crashed.scheduler.create(newJob({ delay_seconds: 600 }), ada)).job;
    const recurring = (await crashed.scheduler.create(newJob({ every: '10m' }), ada)).job;
    await crashed.advance(10 * minute, { waitForRuns: false });
    expect(crashed.runs.map((call) => call.scheduledFor)).toEqual([start + 10 * minute, start + 10 * minute]);

    // The process is gone; a new one starts on the same store a minute later.
    const restarted = new Harness({ store: reopen() });
    restarted.clock.now = start + 11 * minute;
    await restarted.scheduler.start();
    await restarted.scheduler.idle();
    expect(restarted.runs).toEqual([]);
    const interrupted = { lastStatus: 'error', lastError: 'interrupted: the gateway stopped during this run', consecutiveFailures: 1, runs: 1, lastRunAt: start + 10 * minute };
    expect(restarted.scheduler.get(oneShot.id)).toMatchObject({ ...interrupted, state: 'done', nextRunAt: null });
    expect(restarted.scheduler.get(recurring.id)).toMatchObject({ ...interrupted, state: 'active', nextRunAt: start + 20 * minute });
    expect(restarted.scheduler.get(oneShot.id)?.claim).toBeUndefined();

    // A third process sees the settled state and runs only later times.
    const again = new Harness({ store: reopen() });
    again.clock.now = restarted.clock.now;
    await again.scheduler.start();
    await again.advance(10 * minute);
    expect(again.runs.map((call) => [call.job.id, call.scheduledFor])).toEqual([[recurring.id, start + 20 * minute]]);
  });

  it('fires what is due exactly once when the clock jumps forward by hours', async () => {
    const { store } = await kind.open();
    const h = new Harness({ store });
    await h.scheduler.start();
    const hourly = (await h.scheduler.create(newJob({ every: '1h' }), ada)).job;
    const oneShot = (await h.scheduler.create(newJob({ delay_seconds: 1800 }), ada)).job;
    const skipping = (await h.scheduler.create(newJob({ every: '1h', missed: 'skip' }), ada)).job;
    const later = (await h.scheduler.create(newJob({ delay_seconds: 5 * 3600 }), ada)).job;
    await h.advance(10 * minute);
    // 15:10: the hourly jobs' 15:00 is ten minutes late, past the minute a run counts as on time.
    await h.jump(3 * hour);
    expect(h.runs.map((call) => [call.job.id, new Date(call.scheduledFor).toISOString()])).toEqual([
      [oneShot.id, '2026-11-24T12:30:00.000Z'],
      [hourly.id, '2026-11-24T15:00:00.000Z'],
    ]);
    expect(h.scheduler.get(skipping.id)).toMatchObject({ lastStatus: 'skipped', nextRunAt: start + 4 * hour });
    expect(h.scheduler.get(later.id)).toMatchObject({ state: 'active', runs: 0 });
    // Time goes on as usual afterwards: nothing fires twice.
    await h.advance(2 * hour);
    expect(h.runTimes(hourly.id)).toEqual(['2026-11-24T15:00:00.000Z', '2026-11-24T16:00:00.000Z', '2026-11-24T17:00:00.000Z']);
    expect(h.runTimes(oneShot.id)).toHaveLength(1);
    expect(h.runTimes(skipping.id)).toEqual(['2026-11-24T16:00:00.000Z', '2026-11-24T17:00:00.000Z']);
    expect(h.runTimes(later.id)).toEqual(['2026-11-24T17:00:00.000Z']);
  });

  it('sets its timer at most a minute ahead, so a sleep longer than the timer is noticed on wake', async () => {
    const { store } = await kind.open();
    const h = new Harness({ store });
    await h.scheduler.start();
    await h.scheduler.create(newJob({ delay_seconds: 3 * hour }), ada);
    expect(h.clock.armed).toBe(1);
    expect(h.clock.takeDue(start + minute)).toBeDefined();
  });

  it('does not run a job whose claim could not be written, and tries again later', async () => {
    const { store } = await kind.open();
    let failing = false;
    const flaky: Store = Object.assign(Object.create(store) as Store, {
      append: (key: string, record: string) => (failing ? Promise.reject(new Error('disk full')) : store.append(key, record)),
    });
    const h = new Harness({ store: flaky });
    await h.scheduler.start();
    const { job } = await h.scheduler.create(newJob({ delay_seconds: 60 }), ada);
    failing = true;
    await h.advance(minute);
    expect(h.runs).toEqual([]);
    expect(h.lines).toContain('schedule: could not record due runs, trying again in 30s: disk full');
    failing = false;
    await h.advance(30_000);
    expect(h.runs.map((call) => [call.scheduledFor, call.at])).toEqual([[start + minute, start + minute + 30_000]]);
    expect(h.scheduler.get(job.id)?.state).toBe('done');
  });
});

/**
 * "Run now", the console's job action, through `applyScheduleRequest` (the code `operator
 * schedule run` runs) on a real, started scheduler (memory store, injected clock): the run is
 * claimed and counted, the schedule goes on as before, a one-shot job is done after it, a paused
 * job stays paused; refused for a done job, a job already running, an unknown id, someone who is
 * neither its creator nor an admin, and a scheduler that was never started (the command line).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { consoleActor } from '../../src/gateway/admin/job-actions.ts';
import { applyScheduleRequest, type ScheduleControl } from '../../src/gateway/schedule-control.ts';
import { Scheduler, type Job, type JobTarget, type RunOutcome } from '../../src/gateway/scheduler/index.ts';
import { createStore, type Store } from '../../src/store/index.ts';
import { leastSeat } from '../../src/tools/turn-seat.ts';

const start = Date.parse('2026-11-24T12:00:00Z');
const target: JobTarget = { sessionKey: 'telegram:dm:42', address: { platform: 'telegram', conversationId: '42' }, scope: 'dm' };
const creator = { id: '42', name: 'Ada', admin: false, fromJob: false };

let t: number;
let store: Store;
let scheduler: Scheduler;
let runs: { job: Job; scheduledFor: number }[];
let release: (() => void) | undefined;
let hold: Promise<void> | undefined;

function control(over: Scheduler): ScheduleControl {
  return {
    scheduler: over,
    findTarget: async () => target,
    profileFor: async () => 'default',
    assertProfile: () => undefined,
    now: () => t,
    actor: consoleActor,
  };
}

beforeEach(async () => {
  t = start;
  runs = [];
  hold = undefined;
  store = createStore({ driver: 'memory' });
  scheduler = new Scheduler({
    store,
    settings: { timezone: 'UTC' },
    now: () => t,
    run: async (job, scheduledFor): Promise<RunOutcome> => {
      runs.push({ job, scheduledFor });
      await hold;
      return { status: 'ok', delivery: { status: 'delivered' } };
    },
    notify: async () => {},
  });
  await scheduler.start();
});

afterEach(async () => {
  release?.();
  await scheduler.stop();
});

async function create(schedule: { every?: string; delay_seconds?: number }): Promise<Job> {
  return (await scheduler.create({ prompt: 'post the summary', target, profile: 'default', seat: leastSeat, ...schedule }, creator)).job;
}

describe('run now', () => {
  it('runs a recurring job once now, counts the run, and keeps its schedule', async () => {
    const job = await create({ every: '1h' });
    const reply = await applyScheduleRequest({ action: 'run', id: job.id }, control(scheduler));
    expect(reply).toMatchObject({ ok: true, text: `Started a run of job ${job.id}.` });
    await scheduler.idle();
    expect(runs).toEqual([{ job: expect.objectContaining({ id: job.id }), scheduledFor: start }]);
    const after = scheduler.get(job.id)!;
    expect(after).toMatchObject({ state: 'active', runs: 1, lastStatus: 'ok', lastRunAt: start, nextRunAt: job.nextRunAt, lastDelivery: { status: 'delivered', at: start } });
    expect(after.claim).toBeUndefined();
  });

  it('makes a one-shot job done, and leaves a paused job paused', async () => {
    const once = await create({ delay_seconds: 3600 });
    await applyScheduleRequest({ action: 'run', id: once.id }, control(scheduler));
    await scheduler.idle();
    expect(scheduler.get(once.id)).toMatchObject({ state: 'done', runs: 1, nextRunAt: null });
    expect((await applyScheduleRequest({ action: 'run', id: once.id }, control(scheduler))).text).toMatch(/is done/);

    const paused = await create({ every: '1h' });
    await applyScheduleRequest({ action: 'pause', id: paused.id }, control(scheduler));
    expect(scheduler.get(paused.id)!.pausedReason).toBe('paused by the admin console');
    expect((await applyScheduleRequest({ action: 'run', id: paused.id }, control(scheduler))).ok).toBe(true);
    await scheduler.idle();
    expect(scheduler.get(paused.id)).toMatchObject({ state: 'paused', runs: 1, nextRunAt: null, lastStatus: 'ok' });
  });

  it('refuses a job that is running, an unknown id, and someone neither its creator nor an admin', async () => {
    const job = await create({ every: '1h' });
    hold = new Promise((resolve) => (release = resolve));
    expect((await applyScheduleRequest({ action: 'run', id: job.id }, control(scheduler))).ok).toBe(true);
    const again = await applyScheduleRequest({ action: 'run', id: job.id }, control(scheduler));
    expect(again).toMatchObject({ ok: false, text: expect.stringMatching(/is running now/) });
    release!();
    await scheduler.idle();
    expect(runs).toHaveLength(1);
    expect((await applyScheduleRequest({ action: 'run', id: 'nosuchid' }, control(scheduler))).text).toMatch(/no scheduled job has the id/);
    await expect(scheduler.runNow(job.id, { id: '7', admin: false, fromJob: false })).rejects.toThrow(/only the creator/);
  });

  it('is refused where the scheduler only holds the jobs (the command line without a gateway)', async () => {
    const job = await create({ every: '1h' });
    const offline = new Scheduler({ store, settings: { timezone: 'UTC' }, now: () => t, run: () => Promise.reject(new Error('never')), notify: async () => {} });
    await offline.load();
    const reply = await applyScheduleRequest({ action: 'run', id: job.id }, { ...control(offline), actor: undefined });
    expect(reply).toMatchObject({ ok: false, text: 'jobs run only in the running gateway; start it first' });
  });
});

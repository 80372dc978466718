import { describe, expect, it } from 'vitest';
import { ScheduleError, Scheduler, type RunOutcome } from '../../../src/gateway/scheduler/index.ts';
import { ada, admin, bob, deferred, Harness, newJob, start, storeKinds } from './harness.ts';

const minute = 60_000;
const hour = 3_600_000;
const day = 86_400_000;

/** The ScheduleError `promise` rejects with. */
async function refusal(promise: Promise<unknown>): Promise<ScheduleError> {
  const error: unknown = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(ScheduleError);
  return error as ScheduleError;
}

describe.each(storeKinds)('scheduler on the $name', (kind) => {
  it('fires a one-shot job once at its time, records the outcome, and removes it a day after it is done', async () => {
    const { store } = await kind.open();
    const h = new Harness({ store });
    await h.scheduler.start();
    const { job, nextRun } = await h.scheduler.create(newJob({ delay_seconds: 1200, name: 'deploy check' }), ada);
    expect(job).toMatchObject({ state: 'active', nextRunAt: start + 20 * minute, creator: { id: 'user-ada', name: 'Ada' }, profile: 'default', missed: 'run_once', runs: 0 });
    expect(job.id).toMatch(/^[0-9a-hjkmnp-tv-z]{8}$/);
    expect(nextRun).toEqual({ words: 'in 20 minutes (Tue 24 Nov 2026 13:20 Europe/Berlin)', iso: '2026-11-24T13:20:00+01:00' });

    await h.advance(20 * minute - 1);
    expect(h.runs).toHaveLength(0);
    await h.advance(1);
    expect(h.runs).toHaveLength(1);
    expect(h.runs[0]).toMatchObject({ scheduledFor: start + 20 * minute, at: start + 20 * minute, job: { id: job.id, claim: { scheduledFor: start + 20 * minute } } });
    const done = h.scheduler.get(job.id)!;
    expect(done).toMatchObject({ state: 'done', runs: 1, nextRunAt: null, lastStatus: 'ok', lastRunAt: start + 20 * minute, consecutiveFailures: 0 });
    expect(done.lastDelivery).toEqual({ status: 'delivered', at: start + 20 * minute });
    expect(done.claim).toBeUndefined();

    await h.advance(day - 1);
    expect(h.scheduler.get(job.id)?.state).toBe('done');
    await h.advance(minute);
    expect(h.scheduler.get(job.id)).toBeUndefined();
    expect(h.runs).toHaveLength(1);
  });

  it('runs every on its grid and stops after the repeat count', async () => {
    const { store } = await kind.open();
    const h = new Harness({ store });
    await h.scheduler.start();
    const { job } = await h.scheduler.create(newJob({ every: '2h', repeat: 3 }), ada);
    await h.advance(10 * hour);
    expect(h.runTimes(job.id)).toEqual(['2026-11-24T14:00:00.000Z', '2026-11-24T16:00:00.000Z', '2026-11-24T18:00:00.000Z']);
    expect(h.scheduler.get(job.id)).toMatchObject({ state: 'done', runs: 3, nextRunAt: null });
  });

  it('runs cron at its wall-clock times in the job timezone', async () => {
    const { store } = await kind.open();
    const h = new Harness({ store });
    await h.scheduler.start();
    const { job, nextRun } = await h.scheduler.create(newJob({ cron: '0 9 * * *', timezone: 'America/New_York' }), ada);
    expect(nextRun.iso).toBe('2026-11-24T09:00:00-05:00');
    await h.advance(3 * day);
    expect(h.runTimes(job.id)).toEqual(['2026-11-24T14:00:00.000Z', '2026-11-25T14:00:00.000Z', '2026-11-26T14:00:00.000Z']);
    expect(h.scheduler.get(job.id)).toMatchObject({ state: 'active', runs: 3, nextRunAt: Date.parse('2026-11-27T14:00:00Z') });
  });

  it('lists by conversation, by creator, by state and all, soonest first; finds an id as typed', async () => {
    const { store } = await kind.open();
    const h = new Harness({ store });
    await h.scheduler.start();
    const late = (await h.scheduler.create(newJob({ delay_seconds: 7200 }, 'chat-1'), ada)).job;
    const soon = (await h.scheduler.create(newJob({ delay_seconds: 60 }, 'chat-2'), ada)).job;
    const bobs = (await h.scheduler.create(newJob({ every: '1h' }, 'chat-1'), bob)).job;
    await h.scheduler.pause(bobs.id, bob);
    const ids = (jobs: { id: string }[]) => jobs.map((job) => job.id);
    expect(ids(h.scheduler.list())).toEqual([soon.id, late.id, bobs.id]);
    expect(ids(h.scheduler.list({ sessionKey: 'telegram:chat-1' }))).toEqual([late.id, bobs.id]);
    expect(ids(h.scheduler.list({ creatorId: 'user-ada' }))).toEqual([soon.id, late.id]);
    expect(ids(h.scheduler.list({ state: 'paused' }))).toEqual([bobs.id]);
    expect(h.scheduler.get(` ${soon.id.toUpperCase()} `)?.id).toBe(soon.id);
    expect(h.scheduler.get('nope')).toBeUndefined();
    expect(h.scheduler.nextRunOf(soon)?.words).toBe('in 1 minute (Tue 24 Nov 2026 13:01 Europe/Berlin)');
  });

  it('caps active and paused jobs per person and per conversation, and names the cap', async () => {
    const { store } = await kind.open();
    const h = new Harness({ store, settings: { maxJobsPerPerson: 2, maxJobsPerConversation: 3 } });
    await h.scheduler.start();
    const first = (await h.scheduler.create(newJob({ delay_seconds: 60 }), ada)).job;
    const second = (await h.scheduler.create(newJob({ every: '1h' }), ada)).job;
    await h.scheduler.pause(second.id, ada);
    const person = await refusal(h.scheduler.create(newJob({ delay_seconds: 60 }, 'chat-9'), ada));
    expect(person.code).toBe('limit');
    expect(person.message).toBe('you already have 2 active or paused scheduled jobs, the most one person may have (2); cancel one first');

    await h.scheduler.create(newJob({ delay_seconds: 60 }), bob);
    const conversation = await refusal(h.scheduler.create(newJob({ delay_seconds: 60 }), admin));
    expect(conversation.message).toBe('this conversation already has 3 active or paused scheduled jobs, the most one conversation may have (3); cancel one first');

    // A done job no longer counts, nor does a cancelled one.
    await h.advance(minute);
    expect(h.scheduler.get(first.id)?.state).toBe('done');
    await h.scheduler.create(newJob({ delay_seconds: 60 }, 'chat-9'), ada);
    await h.scheduler.cancel(second.id, ada);
    await h.scheduler.create(newJob({ delay_seconds: 60 }, 'chat-9'), ada);
    expect((await refusal(h.scheduler.create(newJob({ delay_seconds: 60 }, 'chat-9'), ada))).code).toBe('limit');
  });

  it('lets only the creator or an admin cancel, pause or resume, and says so', async () => {
    const { store } = await kind.open();
    const h = new Harness({ store });
    await h.scheduler.start();
    const { job } = await h.scheduler.create(newJob({ every: '1h', name: 'standup' }), ada);
    for (const action of ['cancel', 'pause', 'resume'] as const) {
      const error = await refusal(h.scheduler[action](job.id, bob));
      expect(error.code).toBe('forbidden');
      expect(error.message).toBe(`only the creator of job "standup" (${job.id}) (Ada) or an admin may ${action} it`);
    }
    const unknown = await refusal(h.scheduler.cancel(' zzzzzzzz ', ada));
    expect(unknown.code).toBe('not-found');
    expect(unknown.message).toBe('no scheduled job has the id "zzzzzzzz"; list the jobs to see their ids');

    expect((await h.scheduler.pause(job.id, admin)).pausedReason).toBe('paused by Root');
    expect((await h.scheduler.resume(job.id, ada)).state).toBe('active');
    expect((await h.scheduler.cancel(job.id, admin)).id).toBe(job.id);
    expect(h.scheduler.list()).toEqual([]);
    await h.advance(2 * hour);
    expect(h.runs).toHaveLength(0);
  });

  it('refuses jobs created by a job unless allowed, and marks those it allows', async () => {
    const { store } = await kind.open();
    const fromJob = { ...ada, fromJob: true };
    const refused = new Harness({ store });
    await refused.scheduler.load();
    const error = await refusal(refused.scheduler.create(newJob({ delay_seconds: 60 }), fromJob));
    expect(error.code).toBe('limit');
    expect(error.message).toBe('a scheduled job cannot create further scheduled jobs (not allowed in this configuration)');

    const allowed = new Harness({ store, settings: { allowJobsFromJobs: true } });
    await allowed.scheduler.load();
    expect((await allowed.scheduler.create(newJob({ delay_seconds: 60 }), fromJob)).job.fromJob).toBe(true);
  });

  it('checks the prompt, name and missed policy', async () => {
    const { store } = await kind.open();
    const h = new Harness({ store });
    await h.scheduler.load();
    expect((await refusal(h.scheduler.create(newJob({ delay_seconds: 60, prompt: '  ' }), ada))).message).toBe('prompt must say what to do when the job runs; it is empty');
    expect((await refusal(h.scheduler.create(newJob({ delay_seconds: 60, prompt: 'x'.repeat(4001) }), ada))).message).toBe(
      'prompt is 4001 characters long; at most 4000 are allowed',
    );
    expect((await refusal(h.scheduler.create(newJob({ delay_seconds: 60, name: 'n'.repeat(101) }), ada))).message).toBe('name is 101 characters long; at most 100 are allowed');
    const missed = newJob({ delay_seconds: 60, missed: 'later' as 'skip' });
    expect((await refusal(h.scheduler.create(missed, ada))).message).toBe('missed must be "run_once" or "skip", got "later"');
    expect((await refusal(h.scheduler.create(newJob({ cron: '* * * * *' }), ada))).message).toContain('the minimum interval for recurring jobs is 5m');
  });

  it('does not fire a paused job; resume takes the next time from now and keeps the every grid', async () => {
    const { store } = await kind.open();
    const h = new Harness({ store });
    await h.scheduler.start();
    const { job } = await h.scheduler.create(newJob({ every: '1h' }), ada);
    await h.advance(90 * minute);
    expect(h.runTimes(job.id)).toEqual(['2026-11-24T13:00:00.000Z']);
    const paused = await h.scheduler.pause(job.id, ada);
    expect(paused).toMatchObject({ state: 'paused', nextRunAt: null });
    expect(await h.scheduler.pause(job.id, ada)).toBe(h.scheduler.get(job.id));
    await h.advance(3 * hour);
    expect(h.runTimes(job.id)).toHaveLength(1);
    // 16:30 now: the next time on the grid is 17:00.
    const resumed = await h.scheduler.resume(job.id, ada);
    expect(resumed).toMatchObject({ state: 'active', nextRunAt: Date.parse('2026-11-24T17:00:00Z'), consecutiveFailures: 0 });
    expect(resumed.pausedReason).toBeUndefined();
    await h.advance(30 * minute);
    expect(h.runTimes(job.id)).toEqual(['2026-11-24T13:00:00.000Z', '2026-11-24T17:00:00.000Z']);
  });

  it('runs a paused one-shot job whose time passed as soon as it is resumed', async () => {
    const { store } = await kind.open();
    const h = new Harness({ store });
    await h.scheduler.start();
    const { job } = await h.scheduler.create(newJob({ delay_seconds: 600 }), ada);
    await h.scheduler.pause(job.id, ada);
    await h.advance(hour);
    expect(h.runs).toHaveLength(0);
    expect((await h.scheduler.resume(job.id, ada)).nextRunAt).toBe(start + hour);
    await h.advance(0);
    expect(h.runs.map((call) => call.scheduledFor)).toEqual([start + hour]);
    expect(h.scheduler.get(job.id)?.state).toBe('done');
    const error = await refusal(h.scheduler.resume(job.id, ada));
    expect(error.message).toBe(`job ${job.id} is done (it has no runs left); create a new one instead`);
  });

  it('never overlaps runs of one job: a time that comes during a run is skipped', async () => {
    const { store } = await kind.open();
    const held = deferred<RunOutcome>();
    const h = new Harness({ store, outcome: (call) => (call.scheduledFor === start + 5 * minute ? held.promise : { status: 'ok', delivery: { status: 'silent' } }) });
    await h.scheduler.start();
    const { job } = await h.scheduler.create(newJob({ every: '5m' }), ada);
    await h.advance(10 * minute, { waitForRuns: false });
    expect(h.runTimes(job.id)).toEqual(['2026-11-24T12:05:00.000Z']);
    expect(h.scheduler.get(job.id)).toMatchObject({
      lastStatus: 'skipped',
      lastError: 'the run for 2026-11-24T13:10:00+01:00 was skipped: the previous run was still going',
      claim: { scheduledFor: start + 5 * minute },
      nextRunAt: start + 15 * minute,
    });
    held.resolve({ status: 'ok', delivery: { status: 'delivered' } });
    await h.scheduler.idle();
    expect(h.scheduler.get(job.id)).toMatchObject({ lastStatus: 'ok', lastDelivery: { status: 'delivered' }, runs: 1 });
    await h.advance(5 * minute);
    expect(h.runTimes(job.id)).toEqual(['2026-11-24T12:05:00.000Z', '2026-11-24T12:15:00.000Z']);
    expect(h.scheduler.get(job.id)?.lastDelivery).toEqual({ status: 'silent', at: start + 15 * minute });
  });

  it('waits in stop() for a run in flight and records it; a run of a cancelled job is not recorded', async () => {
    const { store } = await kind.open();
    const runs = [deferred<RunOutcome>(), deferred<RunOutcome>()];
    const h: Harness = new Harness({ store, outcome: (): Promise<RunOutcome> => runs[h.runs.length - 1]!.promise });
    await h.scheduler.start();
    const cancelled = (await h.scheduler.create(newJob({ delay_seconds: 60 }), ada)).job;
    const kept = (await h.scheduler.create(newJob({ delay_seconds: 60 }), ada)).job;
    await h.advance(minute, { waitForRuns: false });
    expect(h.runs).toHaveLength(2);
    await h.scheduler.cancel(cancelled.id, ada);
    let stopped = false;
    const stopping = h.scheduler.stop().then(() => (stopped = true));
    runs[0]!.resolve({ status: 'ok', delivery: { status: 'delivered' } });
    await h.scheduler.create(newJob({ delay_seconds: 60 }), ada);
    expect(stopped).toBe(false);
    runs[1]!.resolve({ status: 'ok', delivery: { status: 'delivered' } });
    await stopping;
    expect(h.scheduler.get(cancelled.id)).toBeUndefined();
    expect(h.scheduler.get(kept.id)).toMatchObject({ state: 'done', lastStatus: 'ok' });
    expect(h.lines).toContain(`schedule: job ${cancelled.id}: the run for 2026-11-24T13:01:00+01:00 ended (ok) after the job was cancelled`);
    // Stopped: nothing fires any more.
    await h.advance(hour);
    expect(h.runs).toHaveLength(2);
  });

  it('keeps jobs across a restart before their time, and fires them once after it', async () => {
    const { store, reopen } = await kind.open();
    const before = new Harness({ store });
    await before.scheduler.start();
    const { job } = await before.scheduler.create(newJob({ delay_seconds: 1800 }), ada);
    await before.advance(10 * minute);
    await before.scheduler.stop();

    const after = new Harness({ store: reopen() });
    after.clock.now = before.clock.now;
    await after.scheduler.start();
    expect(after.scheduler.get(job.id)).toEqual(job);
    await after.advance(hour);
    expect(after.runTimes(job.id)).toEqual(['2026-11-24T12:30:00.000Z']);
    expect(before.runs).toHaveLength(0);
  });

  it('refuses to work before the jobs are loaded', async () => {
    const { store } = await kind.open();
    const scheduler = new Scheduler({ store, run: async () => ({ status: 'ok' }), notify: async () => {} });
    expect(() => scheduler.list()).toThrow('The scheduler has not loaded its jobs: call load() or start() first');
    await expect(scheduler.create(newJob({ delay_seconds: 5 }), ada)).rejects.toThrow('call load() or start() first');
  });
});

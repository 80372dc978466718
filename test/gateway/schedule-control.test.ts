/**
 * `operator schedule` requests applied to a real scheduler (memory store, injected clock, never
 * started) and real known conversations: add with each kind of schedule and option, the refusals
 * (unknown or malformed conversation, bad --in, unknown profile, two schedules), list, rm, pause
 * and resume by id; also describeJobsForCli's last-run lines, schedulerSettings and cliActor.
 */
import { beforeEach, describe, expect, it } from 'vitest';
import { ConfigurationError } from '../../src/core/errors.ts';
import type { ScheduleSettings } from '../../src/gateway/config/index.ts';
import { KnownConversations } from '../../src/gateway/known-conversations.ts';
import { applyScheduleRequest, cliActor, describeJobsForCli, findTarget, schedulerSettings, type ScheduleControl, type ScheduleRequest } from '../../src/gateway/schedule-control.ts';
import { Scheduler, type Job, type JobTarget } from '../../src/gateway/scheduler/index.ts';
import { createStore, type Store } from '../../src/store/index.ts';
import { leastSeat } from '../../src/tools/turn-seat.ts';

/** 2026-11-24T12:00:00Z, a Tuesday. */
const start = Date.parse('2026-11-24T12:00:00Z');

const target: JobTarget = { sessionKey: 'telegram:group:-100123', address: { platform: 'telegram', conversationId: '-100123' }, scope: 'group' };

let t: number;
let store: Store;
let scheduler: Scheduler;
let control: ScheduleControl;

function newScheduler(over: Store): Scheduler {
  return new Scheduler({
    store: over,
    settings: { timezone: 'UTC' },
    now: () => t,
    run: () => Promise.reject(new Error('these tests never run a job')),
    notify: async () => {},
  });
}

beforeEach(async () => {
  t = start;
  store = createStore({ driver: 'memory' });
  scheduler = newScheduler(store);
  await scheduler.load();
  const known = new KnownConversations(store);
  await known.remember(target.sessionKey, target.address, target.scope);
  control = {
    scheduler,
    findTarget: (address) => findTarget(known, address),
    profileFor: async () => 'default',
    assertProfile: (name) => {
      if (name !== 'default' && name !== 'support') throw new ConfigurationError(`profile "${name}" does not exist; the profiles are default and support`);
    },
    now: () => t,
  };
});

function apply(request: ScheduleRequest) {
  return applyScheduleRequest(request, control);
}

/** Adds a job through the CLI path and returns it. */
async function add(fields: Partial<Extract<ScheduleRequest, { action: 'add' }>> = {}): Promise<Job> {
  const reply = await apply({ action: 'add', to: 'telegram:-100123', prompt: 'remind me', in: '20m', ...fields });
  expect(reply.ok, reply.text).toBe(true);
  return reply.jobs[0]!;
}

describe('applyScheduleRequest: add', () => {
  it('adds a one-shot job --in a duration and says where, with which profile and when', async () => {
    const reply = await apply({ action: 'add', to: 'telegram:-100123', prompt: 'remind me', in: '20m' });
    expect(reply.ok).toBe(true);
    expect(reply.jobs).toHaveLength(1);
    const job = reply.jobs[0]!;
    expect(reply.text).toContain(`Scheduled job ${job.id} in telegram:-100123 with profile default`);
    expect(reply.text).toContain('in 20 minutes');
    expect(reply.text).toContain('2026-11-24T12:20:00+00:00');
  });

  it('stores a pipeline to start, and the listing shows it with the prompt as its goal', async () => {
    const job = await add({ pipeline: 'task', prompt: 'tidy the docs' });
    expect(job).toMatchObject({ pipeline: 'task', prompt: 'tidy the docs' });
    const listed = await apply({ action: 'list' });
    expect(listed.text).toContain('  pipeline  task');
    expect(listed.text).toContain('  goal      tidy the docs');
  });

  it('stores the job with the command line as its creator, the conversation as its target and the delay as its time', async () => {
    const job = await add();
    expect(job).toMatchObject({
      prompt: 'remind me',
      creator: { id: 'cli' },
      target: { sessionKey: 'telegram:group:-100123', address: { platform: 'telegram', conversationId: '-100123' }, scope: 'group' },
      profile: 'default',
      schedule: { kind: 'at', at: start + 20 * 60_000 },
      nextRunAt: start + 20 * 60_000,
      state: 'active',
      missed: 'run_once',
      timezone: 'UTC',
    });
    expect(job.fromJob).toBeUndefined();

    // Persisted: a scheduler loading the same store later has it.
    const later = newScheduler(store);
    await later.load();
    expect(later.get(job.id)).toEqual(job);
  });

  it('adds a job --at an ISO time', async () => {
    const reply = await apply({ action: 'add', to: 'telegram:-100123', prompt: 'remind me', at: '2026-11-25T09:00:00+01:00' });
    expect(reply.ok, reply.text).toBe(true);
    expect(reply.jobs[0]!.schedule).toEqual({ kind: 'at', at: Date.parse('2026-11-25T08:00:00Z') });
    expect(reply.text).toContain('2026-11-25T08:00:00+00:00');
  });

  it('adds a recurring job --every with a repeat count, a name and the skip policy', async () => {
    const reply = await apply({ action: 'add', to: 'telegram:-100123', prompt: 'post the summary', every: '2h', repeat: 3, name: 'summary', missed: 'skip' });
    expect(reply.ok, reply.text).toBe(true);
    const job = reply.jobs[0]!;
    expect(job).toMatchObject({ name: 'summary', repeat: 3, missed: 'skip', schedule: { kind: 'every', everyMs: 7_200_000 }, nextRunAt: start + 7_200_000 });
    expect(reply.text).toContain(`Scheduled job "summary" (${job.id}) in telegram:-100123`);
    expect(reply.text).toContain('in 2 hours');
  });

  it('adds a --cron job read in the --timezone given', async () => {
    const reply = await apply({ action: 'add', to: 'telegram:-100123', prompt: 'weekly plan', cron: '0 9 * * 1', timezone: 'Europe/Berlin' });
    expect(reply.ok, reply.text).toBe(true);
    const job = reply.jobs[0]!;
    expect(job).toMatchObject({ schedule: { kind: 'cron', expression: '0 9 * * 1' }, timezone: 'Europe/Berlin' });
    // Monday 30 November 2026, 09:00 in Berlin (UTC+1).
    expect(job.nextRunAt).toBe(Date.parse('2026-11-30T08:00:00Z'));
    expect(reply.text).toContain('2026-11-30T09:00:00+01:00');
  });

  it('runs the job with the --profile named instead of the conversation\'s', async () => {
    const reply = await apply({ action: 'add', to: 'telegram:-100123', prompt: 'remind me', in: '1h', profile: 'support' });
    expect(reply.ok, reply.text).toBe(true);
    expect(reply.jobs[0]!.profile).toBe('support');
    expect(reply.text).toContain('with profile support');
  });

  it('refuses a conversation operator has never talked in, saying so', async () => {
    const reply = await apply({ action: 'add', to: 'telegram:-999', prompt: 'remind me', in: '20m' });
    expect(reply).toEqual({ ok: false, text: expect.stringContaining('has never talked in telegram:-999'), jobs: [] });
    expect(scheduler.list()).toEqual([]);
  });

  it('refuses a malformed conversation with the form expected', async () => {
    const reply = await apply({ action: 'add', to: 'telegram', prompt: 'remind me', in: '20m' });
    expect(reply.ok).toBe(false);
    expect(reply.text).toContain('platform:conversation[:thread]');
    expect(reply.text).toContain('"telegram"');
    expect(reply.jobs).toEqual([]);
  });

  it.each(['soon', '0s', '-5m', ''])('refuses --in %j, naming --in', async (delay) => {
    const reply = await apply({ action: 'add', to: 'telegram:-100123', prompt: 'remind me', in: delay });
    expect(reply.ok).toBe(false);
    expect(reply.text).toContain('--in must be a duration');
    expect(reply.text).toContain(`"${delay}"`);
    expect(scheduler.list()).toEqual([]);
  });

  it('refuses an unknown profile with the configuration error\'s message', async () => {
    const reply = await apply({ action: 'add', to: 'telegram:-100123', prompt: 'remind me', in: '20m', profile: 'nope' });
    expect(reply).toEqual({ ok: false, text: 'profile "nope" does not exist; the profiles are default and support', jobs: [] });
  });

  it('refuses two kinds of schedule at once with the scheduler\'s message', async () => {
    const reply = await apply({ action: 'add', to: 'telegram:-100123', prompt: 'remind me', in: '20m', every: '2h' });
    expect(reply.ok).toBe(false);
    expect(reply.text).toContain('give exactly one of at, delay_seconds, every, cron');
    expect(scheduler.list()).toEqual([]);
  });

  it('refuses an every shorter than the minimum interval', async () => {
    const reply = await apply({ action: 'add', to: 'telegram:-100123', prompt: 'remind me', every: '1m' });
    expect(reply.ok).toBe(false);
    expect(reply.text).toContain('shorter than the minimum interval');
  });

  it('lets other errors through rather than calling them a refusal', async () => {
    control.profileFor = async () => {
      throw new Error('bindings unreadable');
    };
    await expect(apply({ action: 'add', to: 'telegram:-100123', prompt: 'remind me', in: '20m' })).rejects.toThrow('bindings unreadable');
  });
});

describe('applyScheduleRequest: list', () => {
  it('says there are no jobs when there are none', async () => {
    expect(await apply({ action: 'list' })).toEqual({ ok: true, text: 'No scheduled jobs.', jobs: [] });
  });

  it('lists every job, soonest first, with id, state, conversation, schedule and next run', async () => {
    const every = await add({ in: undefined, every: '2h', repeat: 3, name: 'summary' });
    const once = await add();
    const cron = await add({ in: undefined, cron: '0 9 * * 1', timezone: 'Europe/Berlin', prompt: 'weekly plan' });

    const reply = await apply({ action: 'list' });
    expect(reply.ok).toBe(true);
    expect(reply.jobs.map((job) => job.id)).toEqual([once.id, every.id, cron.id]);
    const blocks = reply.text.split('\n\n');
    expect(blocks).toHaveLength(3);
    expect(blocks[0]).toBe(
      [
        `${once.id}  active`,
        '  in        telegram:-100123 (profile default), set by the operator command line',
        '  schedule  once at 2026-11-24T12:20:00+00:00',
        '  next      2026-11-24T12:20:00+00:00',
        '  prompt    remind me',
      ].join('\n'),
    );
    expect(blocks[1]).toContain(`${every.id}  "summary"  active`);
    expect(blocks[1]).toContain('  schedule  every 2h, 0 of 3 runs');
    expect(blocks[1]).toContain('  next      2026-11-24T14:00:00+00:00');
    expect(blocks[2]).toContain('  schedule  cron "0 9 * * 1" in Europe/Berlin');
    expect(blocks[2]).toContain('  next      2026-11-30T09:00:00+01:00');
    expect(blocks[2]).toContain('  prompt    weekly plan');
  });

  it('marks a next run that has come as due', async () => {
    await add();
    t = start + 30 * 60_000;
    expect((await apply({ action: 'list' })).text).toContain('  next      2026-11-24T12:20:00+00:00 (due)');
  });
});

describe('applyScheduleRequest: rm, pause and resume', () => {
  it('removes a job by its id typed in capitals', async () => {
    const job = await add();
    const reply = await apply({ action: 'rm', id: ` ${job.id.toUpperCase()} ` });
    expect(reply).toEqual({ ok: true, text: `Removed job ${job.id}.`, jobs: [job] });
    expect(scheduler.list()).toEqual([]);
  });

  it('pauses a job, and list shows who paused it', async () => {
    const job = await add({ name: 'nudge' });
    const reply = await apply({ action: 'pause', id: job.id.toUpperCase() });
    expect(reply.ok).toBe(true);
    expect(reply.text).toBe(`Paused job "nudge" (${job.id}).`);
    expect(reply.jobs[0]).toMatchObject({ id: job.id, state: 'paused', nextRunAt: null });
    expect((await apply({ action: 'list' })).text).toContain(`${job.id}  "nudge"  paused (paused by the operator command line)`);
  });

  it('resumes a paused job and says when it runs next', async () => {
    const job = await add();
    await apply({ action: 'pause', id: job.id });
    t = start + 5 * 60_000;
    const reply = await apply({ action: 'resume', id: job.id.toUpperCase() });
    expect(reply.ok).toBe(true);
    expect(reply.text).toBe(`Resumed job ${job.id}. Next run in 15 minutes (Tue 24 Nov 2026 12:20 UTC), 2026-11-24T12:20:00+00:00.`);
    expect(reply.jobs[0]).toMatchObject({ state: 'active', nextRunAt: start + 20 * 60_000 });
  });

  it.each(['rm', 'pause', 'resume'] as const)('refuses to %s an unknown id', async (action) => {
    await add();
    const reply = await apply({ action, id: 'zzzzzzzz' });
    expect(reply.ok).toBe(false);
    expect(reply.text).toContain('no scheduled job has the id "zzzzzzzz"');
    expect(reply.jobs).toEqual([]);
    expect(scheduler.list()).toHaveLength(1);
  });

  it('may remove, pause and resume a job someone else created, being an admin', async () => {
    const { job } = await scheduler.create({ prompt: 'their reminder', delay_seconds: 600, target, profile: 'default', seat: leastSeat }, { id: '42', admin: false, fromJob: false });
    expect((await apply({ action: 'pause', id: job.id })).ok).toBe(true);
    expect((await apply({ action: 'resume', id: job.id })).ok).toBe(true);
    const reply = await apply({ action: 'rm', id: job.id });
    expect(reply).toMatchObject({ ok: true, text: `Removed job ${job.id}.` });
    expect(scheduler.list()).toEqual([]);
  });
});

describe('describeJobsForCli', () => {
  const base: Job = {
    id: 'k3v9x2ab',
    prompt: 'check the build',
    schedule: { kind: 'every', everyMs: 3_600_000, anchor: start },
    timezone: 'UTC',
    target,
    creator: { id: '42', name: 'Ada' },
    profile: 'default',
    runs: 2,
    missed: 'run_once',
    state: 'active',
    nextRunAt: start + 3_600_000,
    consecutiveFailures: 0,
    createdAt: start - 7_200_000,
  };

  it('shows the last run\'s time, status and error, and that its answer could not be delivered', () => {
    const job: Job = {
      ...base,
      lastRunAt: start - 60_000,
      lastStatus: 'error',
      lastError: 'the model timed out',
      lastDelivery: { status: 'failed', error: 'chat not found', at: start - 30_000 },
      consecutiveFailures: 1,
    };
    const text = describeJobsForCli([job], start);
    expect(text).toContain('  last      2026-11-24T11:59:00+00:00 error: the model timed out, answer failed (chat not found)');
    expect(text).toContain('set by Ada');
  });

  it('shows a delivered answer and a skipped run without a time', () => {
    expect(describeJobsForCli([{ ...base, lastRunAt: start - 60_000, lastStatus: 'ok', lastDelivery: { status: 'delivered', at: start } }], start)).toContain(
      '  last      2026-11-24T11:59:00+00:00 ok, answer delivered',
    );
    expect(describeJobsForCli([{ ...base, lastStatus: 'skipped', lastError: 'missed while the gateway was down' }], start)).toContain(
      '  last      skipped: missed while the gateway was down',
    );
  });

  it('leaves out the last line for a job that has not run, and the next line for a done one', () => {
    expect(describeJobsForCli([base], start)).not.toContain('  last');
    const done = describeJobsForCli([{ ...base, state: 'done', nextRunAt: null, doneAt: start }], start);
    expect(done).toContain('k3v9x2ab  done');
    expect(done).not.toContain('  next');
  });

  it('names the creator by id when it has no name, and shortens a long prompt to one line', () => {
    const text = describeJobsForCli([{ ...base, creator: { id: '42' }, prompt: `first line\nsecond line ${'x'.repeat(300)}` }], start);
    expect(text).toContain('set by 42');
    const promptLine = text.split('\n').find((line) => line.startsWith('  prompt'))!;
    expect(promptLine).toMatch(/^ {2}prompt {4}first line second line x+\.\.\.$/);
    expect(promptLine.length).toBeLessThanOrEqual('  prompt    '.length + 200);
  });
});

describe('schedulerSettings', () => {
  const config: ScheduleSettings = { timezone: 'Europe/Berlin', maxJobsPerPerson: 25, maxJobsPerConversation: 50, minIntervalMinutes: 5, missedGraceHours: 6, allowJobsFromJobs: false };

  it('turns minutes and hours into milliseconds and keeps the rest', () => {
    expect(schedulerSettings(config)).toEqual({
      timezone: 'Europe/Berlin',
      maxJobsPerPerson: 25,
      maxJobsPerConversation: 50,
      minIntervalMs: 300_000,
      graceMs: 21_600_000,
      allowJobsFromJobs: false,
    });
  });

  it('turns a fraction of a minute into whole milliseconds', () => {
    expect(schedulerSettings({ ...config, minIntervalMinutes: 0.05 }).minIntervalMs).toBe(3_000);
    expect(schedulerSettings({ ...config, minIntervalMinutes: 1 / 60 }).minIntervalMs).toBe(1_000);
  });

  it('leaves the time zone out when none is configured, so the scheduler uses the machine\'s', () => {
    const { timezone: _timezone, ...withoutZone } = config;
    expect(schedulerSettings(withoutZone)).not.toHaveProperty('timezone');
  });
});

describe('cliActor', () => {
  it('is an admin named "cli" that is not a job', () => {
    expect(cliActor).toEqual({ id: 'cli', name: 'the operator command line', admin: true, fromJob: false });
  });
});

/**
 * The scheduler: keeps the jobs (durably, through a {@link JobStore}), fires each at its time
 * through the `run` function the gateway passes in, and records what happened.
 *
 * Invariants (see also README.md in this folder):
 * - A run is claimed durably (`claim` and the advanced `nextRunAt` in one record) before `run` is
 *   called, so no scheduled time runs twice, even across a crash; a claim found at start-up is a
 *   run the gateway died in, recorded as an error and never run again.
 * - One timer for all jobs, set for the earliest due time and never more than a minute ahead; on
 *   every wake the due times are compared with the clock, so a clock jump or a machine that slept
 *   neither loses nor repeats runs. No job is polled.
 * - A time noticed more than a minute late is missed: `run_once` runs the most recent missed time
 *   if it is within the grace window, anything else is recorded as skipped.
 * - Runs of one job never overlap: a time that comes while the previous run is in flight is skipped.
 */
import { describeNextRun, type NextRunDescription } from './describe-next-run.ts';
import { DueQueue, type DueEntry } from './due-queue.ts';
import { dueRun } from './due-run.ts';
import { formatDuration } from './duration.ts';
import { JobCounts } from './job-counts.ts';
import { openJobStore, type JobStore } from './job-store.ts';
import { jobLabel, newJobId, normalizeJobId, type Job } from './job.ts';
import { buildJob, checkNewJob, type NewJob, type SchedulerActor } from './new-job.ts';
import { nextRunAfter } from './next-run.ts';
import { parseSchedule } from './parse-schedule.ts';
import { interruptedError, settleRun, type RunOutcome } from './run-outcome.ts';
import { ScheduleError } from './schedule-error.ts';
import { formatIsoInZone, isValidTimezone } from './zoned-time.ts';
import { schedulerDefaults, type CreatedJob, type JobFilter, type SchedulerOptions, type SchedulerSettings } from './scheduler-settings.ts';

export type { CreatedJob, JobFilter, SchedulerOptions, SchedulerSettings } from './scheduler-settings.ts';

/** The timer is never set further ahead: every wake compares due times with the (possibly jumped) clock. */
const maxTimerMs = 60_000;
/** After a failed store write while firing, wait this long before trying again. */
const retryAfterMs = 30_000;
/** The in-process lock that serialises changes of jobs (no store key is written under it). */
const lockKey = 'schedule:lock';

/**
 * Schedules jobs and fires them. Call {@link start} once the gateway can run turns; {@link load}
 * alone reads the jobs for listing and changes without firing anything.
 *
 * @example
 * const scheduler = new Scheduler({ store, run: (job, at) => gateway.runScheduledTurn(job, at), notify });
 * await scheduler.start();
 * const { job, nextRun } = await scheduler.create({ every: '1d', prompt: 'Post the on-call summary', target, profile }, actor);
 */
export class Scheduler {
  /** The settings; `timezone` only when one was given (see {@link defaultTimezone}). */
  private readonly settings: Omit<SchedulerSettings, 'timezone'> & { timezone?: string };
  private readonly now: () => number;
  private readonly setTimer: (callback: () => Promise<void>, ms: number) => unknown;
  private readonly clearTimer: (handle: unknown) => void;
  private readonly log: (line: string) => void;
  private readonly queue = new DueQueue();
  /** Live jobs per person and conversation, for the caps. */
  private readonly counts = new JobCounts();
  /** Runs started and not yet recorded, by job id. */
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Notifications under way, so {@link stop} can wait for them. */
  private readonly notices = new Set<Promise<void>>();
  private loading: Promise<JobStore> | undefined;
  private store: JobStore | undefined;
  private timer: { handle: unknown } | undefined;
  private waking: Promise<void> | undefined;
  private started = false;
  private stopped = false;
  private retryAt = 0;

  constructor(private readonly options: SchedulerOptions) {
    const timezone = options.settings?.timezone;
    if (timezone !== undefined && !isValidTimezone(timezone)) throw new RangeError(`Scheduler timezone ${JSON.stringify(timezone)} is not a known IANA zone`);
    // This machine's zone is looked up when a job first needs it: the first Intl call loads the
    // time zone data (about 25 ms), which the gateway's start need not wait for.
    this.settings = { ...schedulerDefaults, ...options.settings };
    this.now = options.now ?? Date.now;
    this.setTimer = options.setTimer ?? ((callback, ms) => setTimeout(callback, ms).unref());
    this.clearTimer = options.clearTimer ?? ((handle) => clearTimeout(handle as ReturnType<typeof setTimeout>));
    this.log = options.log ?? (() => {});
  }

  /** Reads the jobs from the store (once). Needed before anything else; {@link start} calls it. */
  async load(): Promise<void> {
    this.loading ??= openJobStore(this.options.store, { log: this.log }).then((jobs) => {
      for (const job of jobs.jobs()) this.counts.update(undefined, job);
      return jobs;
    });
    try {
      this.store = await this.loading;
    } catch (error) {
      // A failed load (the store was unreachable) is tried again by the next call.
      this.loading = undefined;
      throw error;
    }
  }

  /**
   * Loads the jobs, records runs that a previous process died in, applies the missed policy to
   * times that passed while it was down, and arms the timer. Resolves once all that is durable
   * (the runs it starts go on in the background).
   */
  async start(): Promise<void> {
    if (this.started) throw new Error('The scheduler was already started');
    await this.load();
    const now = this.now();
    await this.exclusive(async (jobs) => {
      for (const job of [...jobs.jobs()]) {
        if (job.claim === undefined) continue;
        // The process that claimed this run died before recording it: it may or may not have run, so it is never run again.
        const settled = settleRun(job, { status: 'error', error: interruptedError }, this.settings, now);
        await this.save(jobs, settled.job);
        this.log(`schedule: job ${job.id}: the run for ${this.iso(job, job.claim.scheduledFor)} was interrupted by a stop`);
        if (settled.notice) this.tell(settled.job, settled.notice);
      }
    });
    this.started = true;
    this.requeueAll();
    await this.wake();
  }

  /** Stops firing and waits for the runs (and notifications) under way to be recorded. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.disarm();
    await this.idle();
  }

  /**
   * Resolves once no wake is under way and every run started so far has been recorded (and its
   * notices sent). Unlike {@link stop}, firing goes on afterwards.
   */
  async idle(): Promise<void> {
    while (this.waking || this.inFlight.size > 0 || this.notices.size > 0) {
      await this.waking;
      await Promise.allSettled([...this.inFlight.values(), ...this.notices]);
    }
  }

  /**
   * Creates a job from the tool's arguments: checks the schedule (see {@link parseSchedule}) and
   * the caps, persists the job and arms the timer. Throws a {@link ScheduleError} whose message is
   * meant for the model.
   */
  async create(input: NewJob, actor: SchedulerActor): Promise<CreatedJob> {
    this.loaded();
    if (actor.fromJob && !this.settings.allowJobsFromJobs) {
      throw new ScheduleError('limit', 'a scheduled job cannot create further scheduled jobs (not allowed in this configuration)');
    }
    const checked = checkNewJob(input);
    const now = this.now();
    const parsed = parseSchedule(input, { now, timezone: this.defaultTimezone(), minIntervalMs: this.settings.minIntervalMs });

    return this.exclusive(async (jobs) => {
      this.checkCaps(actor.id, input.target.sessionKey);
      let id = newJobId();
      while (jobs.get(id)) id = newJobId();
      const job = buildJob(id, input, checked, parsed, actor, now);
      await this.save(jobs, job);
      this.log(`schedule: job ${id} created by ${actor.id}, first run ${this.iso(job, parsed.nextRunAt)}`);
      return { job, nextRun: describeNextRun(parsed.nextRunAt, job.timezone, now) };
    });
  }

  /** The jobs that match `filter` (all without one), soonest next run first, then paused and done ones. Do not modify them. */
  list(filter: JobFilter = {}): Job[] {
    const matches = [...this.loaded().jobs()].filter(
      (job) =>
        (filter.sessionKey === undefined || job.target.sessionKey === filter.sessionKey) &&
        (filter.creatorId === undefined || job.creator.id === filter.creatorId) &&
        (filter.state === undefined || job.state === filter.state),
    );
    return matches.sort((a, b) => (a.nextRunAt ?? Infinity) - (b.nextRunAt ?? Infinity) || a.createdAt - b.createdAt);
  }

  /** The job with `id` (as typed: case and surrounding spaces do not matter). Do not modify it. */
  get(id: string): Job | undefined {
    return this.loaded().get(normalizeJobId(id));
  }

  /** The job's next run, described at the scheduler's clock; undefined when it has none. */
  nextRunOf(job: Job): NextRunDescription | undefined {
    return job.nextRunAt === null ? undefined : describeNextRun(job.nextRunAt, job.timezone, this.now());
  }

  /** Removes a job (a run in flight finishes, unrecorded). Only its creator or an admin may. */
  async cancel(id: string, actor: SchedulerActor): Promise<Job> {
    return this.exclusive(async (jobs) => {
      const job = this.permitted(jobs, id, actor, 'cancel');
      await this.drop(jobs, job.id);
      this.log(`schedule: job ${job.id} cancelled by ${actor.id}`);
      return job;
    });
  }

  /** Stops a job from firing until resumed. Only its creator or an admin may; pausing a paused job changes nothing. */
  async pause(id: string, actor: SchedulerActor): Promise<Job> {
    return this.exclusive(async (jobs) => {
      const job = this.permitted(jobs, id, actor, 'pause');
      if (job.state === 'done') throw new ScheduleError('invalid', `job ${jobLabel(job)} is done (it has no runs left); there is nothing to pause`);
      if (job.state === 'paused') return job;
      const paused: Job = { ...job, state: 'paused', nextRunAt: null, pausedReason: `paused by ${actor.name ?? actor.id}` };
      await this.save(jobs, paused);
      return paused;
    });
  }

  /**
   * Lets a paused job fire again from now on: its next time after now (an `every` job keeps its
   * grid). A one-shot job whose time passed while paused runs at once: it was asked for and has
   * not run. The failure streak starts again. Resuming an active job changes nothing.
   */
  async resume(id: string, actor: SchedulerActor): Promise<Job> {
    return this.exclusive(async (jobs) => {
      const job = this.permitted(jobs, id, actor, 'resume');
      if (job.state === 'done') throw new ScheduleError('invalid', `job ${jobLabel(job)} is done (it has no runs left); create a new one instead`);
      if (job.state === 'active') return job;
      const now = this.now();
      const runsLeft = job.schedule.kind === 'at' ? 1 - job.runs : job.repeat === undefined ? Infinity : job.repeat - job.runs;
      const next = runsLeft <= 0 ? null : (nextRunAfter(job.schedule, job.timezone, now) ?? (job.schedule.kind === 'at' ? now : null));
      // With no run left and none in flight to settle it, the job is done.
      const done = next === null && !this.inFlight.has(job.id);
      const resumed: Job = {
        ...job,
        state: done ? 'done' : 'active',
        doneAt: done ? now : undefined,
        nextRunAt: next,
        pausedReason: undefined,
        consecutiveFailures: 0,
      };
      await this.save(jobs, resumed);
      return resumed;
    });
  }

  /**
   * Runs a job once now, besides its schedule (the admin console's "run now"): claimed durably
   * like a due time, so it counts as one of its runs, and its schedule goes on as before. A
   * one-shot job is then done; a paused job stays paused. Only its creator or an admin may, only
   * in the running gateway, and never beside a run of the same job.
   */
  async runNow(id: string, actor: SchedulerActor): Promise<Job> {
    if (!this.started || this.stopped) throw new ScheduleError('invalid', 'jobs run only in the running gateway; start it first');
    return this.exclusive(async (jobs) => {
      const job = this.permitted(jobs, id, actor, 'run');
      if (job.state === 'done') throw new ScheduleError('invalid', `job ${jobLabel(job)} is done (it has no runs left); create a new one instead`);
      if (this.inFlight.has(job.id) || job.claim !== undefined) throw new ScheduleError('invalid', `job ${jobLabel(job)} is running now; wait for the run to end`);
      const now = this.now();
      // A one-shot job's one run is this one; a recurring job keeps its next time.
      await this.claimAndRun(jobs, job, now, job.schedule.kind === 'at' ? null : job.nextRunAt, now);
      return jobs.get(job.id)!;
    });
  }

  /**
   * Moves the jobs that deliver to chat `from` of `platform` to chat `to`, whose one conversation
   * is `sessionKey`: the platform gave the chat a new id (a Telegram basic group, which has no
   * threads, made a supergroup). Resolves to the jobs moved.
   */
  async moveChat(platform: string, from: string, to: { conversationId: string; sessionKey: string }): Promise<Job[]> {
    return this.exclusive(async (jobs) => {
      const there = [...jobs.jobs()].filter((job) => job.target.address.platform === platform && job.target.address.conversationId === from);
      const moved = there.map((job): Job => ({ ...job, target: { ...job.target, sessionKey: to.sessionKey, address: { ...job.target.address, conversationId: to.conversationId } } }));
      for (const job of moved) await this.save(jobs, job);
      return moved;
    });
  }

  // ---- firing ----

  /** Fires what is due, then arms the timer again. One wake at a time. */
  private async wake(): Promise<void> {
    this.disarm();
    if (this.stopped || this.waking) return;
    this.waking = this.fireDue().catch((error: unknown) => {
      this.retryAt = this.now() + retryAfterMs;
      this.log(`schedule: could not record due runs, trying again in ${formatDuration(retryAfterMs)}: ${message(error)}`);
    });
    await this.waking;
    this.waking = undefined;
    this.arm();
  }

  private async fireDue(): Promise<void> {
    const now = this.now();
    const due = new Set<string>();
    for (let top = this.queue.peek(); top !== undefined && top.at <= now; top = this.queue.peek()) {
      const entry = this.queue.pop()!;
      if (this.isCurrent(entry)) due.add(entry.id);
    }
    if (due.size === 0) return;
    let failure: unknown;
    await this.exclusive(async (jobs) => {
      for (const id of due) {
        const job = jobs.get(id);
        if (!job) continue;
        try {
          await this.fire(jobs, job, now);
        } catch (error) {
          // Nothing was recorded for this job: it is looked at again after the pause (see wake).
          const at = this.dueTime(job);
          if (at !== null) this.queue.push(at, job.id);
          failure ??= error;
        }
      }
    });
    if (failure !== undefined) throw failure;
  }

  /** Acts on a job whose due time has come: removes a done job, else runs or skips the due time. */
  private async fire(jobs: JobStore, job: Job, now: number): Promise<void> {
    if (job.state === 'done') {
      if ((job.doneAt ?? 0) + this.settings.doneRetentionMs <= now) await this.drop(jobs, job.id);
      return;
    }
    if (job.state !== 'active' || job.nextRunAt === null || job.nextRunAt > now) return;
    const due = dueRun(job, now, { graceMs: this.settings.graceMs, running: this.inFlight.has(job.id) });
    if (due.action === 'skip') return this.skip(jobs, job, due.following, due.reason);
    if (due.missedFrom !== undefined) {
      this.log(`schedule: job ${job.id}: skipped the times from ${this.iso(job, due.missedFrom)} to before ${this.iso(job, due.scheduledFor)}`);
    }
    await this.claimAndRun(jobs, job, due.scheduledFor, due.following, now);
  }

  /** Writes the claim and the next time durably, then starts the run in the background. */
  private async claimAndRun(jobs: JobStore, job: Job, scheduledFor: number, following: number | null, now: number): Promise<void> {
    const runs = job.runs + 1;
    const exhausted = job.repeat !== undefined && runs >= job.repeat;
    const claimed: Job = { ...job, runs, nextRunAt: exhausted ? null : following, claim: { scheduledFor, at: now } };
    await this.save(jobs, claimed);
    this.log(`schedule: job ${job.id}: run ${runs} for ${this.iso(job, scheduledFor)}`);
    const running = this.runAndRecord(claimed, scheduledFor, following).finally(() => this.inFlight.delete(job.id));
    this.inFlight.set(job.id, running);
  }

  private async runAndRecord(job: Job, scheduledFor: number, following: number | null): Promise<void> {
    let outcome: RunOutcome;
    try {
      outcome = await this.options.run(job, scheduledFor);
    } catch (error) {
      outcome = { status: 'error', error: message(error) };
    }
    try {
      await this.exclusive(async (jobs) => {
        const current = jobs.get(job.id);
        if (current?.claim?.scheduledFor !== scheduledFor) {
          this.log(`schedule: job ${job.id}: the run for ${this.iso(job, scheduledFor)} ended (${outcome.status}) after the job was cancelled`);
          return;
        }
        const settled = settleRun(current, outcome, this.settings, this.now(), following);
        await this.save(jobs, settled.job);
        if (settled.job.lastStatus === 'error') this.log(`schedule: job ${job.id}: run failed: ${settled.job.lastError}`);
        if (settled.notice) this.tell(settled.job, settled.notice);
      });
    } catch (error) {
      // The claim stays: after a restart this run counts as interrupted, which is wrong only in that it may have succeeded.
      this.log(`schedule: job ${job.id}: could not record the outcome of its run: ${message(error)}`);
    }
  }

  /** Records a due time as skipped and moves on to the next one (a one-shot job is then done). */
  private async skip(jobs: JobStore, job: Job, following: number | null, reason: string): Promise<void> {
    const now = this.now();
    const exhausted = following === null && job.claim === undefined;
    const skipped: Job = {
      ...job,
      nextRunAt: following,
      lastStatus: 'skipped',
      lastError: reason,
      state: exhausted ? 'done' : job.state,
      doneAt: exhausted ? now : job.doneAt,
    };
    await this.save(jobs, skipped);
    this.log(`schedule: job ${job.id}: ${reason}`);
  }

  // ---- the timer and the queue ----

  private arm(): void {
    this.disarm();
    if (!this.started || this.stopped || this.waking) return;
    const jobs = this.loaded();
    // Stale entries pile up as jobs change; rebuild when they outnumber the jobs.
    if (this.queue.size > 2 * jobs.size + 1_024) this.requeueAll();
    while (this.queue.peek() !== undefined && !this.isCurrent(this.queue.peek()!)) this.queue.pop();
    const top = this.queue.peek();
    if (!top) return;
    const now = this.now();
    const delay = Math.min(maxTimerMs, Math.max(0, top.at - now, this.retryAt - now));
    const timer = { handle: undefined as unknown };
    this.timer = timer;
    timer.handle = this.setTimer(async () => {
      if (this.timer === timer) await this.wake();
    }, delay);
  }

  private disarm(): void {
    if (this.timer) this.clearTimer(this.timer.handle);
    this.timer = undefined;
  }

  private requeueAll(): void {
    this.queue.clear();
    for (const job of this.loaded().jobs()) {
      const at = this.dueTime(job);
      if (at !== null) this.queue.push(at, job.id);
    }
  }

  /** When the scheduler next needs to look at a job: its next run, or when a done job is removed. */
  private dueTime(job: Job): number | null {
    if (job.state === 'active') return job.nextRunAt;
    if (job.state === 'done') return (job.doneAt ?? 0) + this.settings.doneRetentionMs;
    return null;
  }

  /** True when the entry still matches its job (a changed job has a newer entry). */
  private isCurrent(entry: DueEntry): boolean {
    const job = this.loaded().get(entry.id);
    return job !== undefined && this.dueTime(job) === entry.at;
  }

  // ---- helpers ----

  /** The zone of jobs that name none: the configured one, else this machine's. */
  private defaultTimezone(): string {
    return (this.settings.timezone ??= Intl.DateTimeFormat().resolvedOptions().timeZone);
  }

  /** Persists a new or changed job, counts it and queues its new due time. */
  private async save(jobs: JobStore, job: Job): Promise<void> {
    const before = jobs.get(job.id);
    await jobs.put(job);
    this.counts.update(before, job);
    const at = this.dueTime(job);
    if (at === null) return;
    this.queue.push(at, job.id);
    // For changes outside a wake (create, resume, a run's outcome); a wake re-arms when it ends.
    this.arm();
  }

  /** Removes a job from the store and the counts. */
  private async drop(jobs: JobStore, id: string): Promise<void> {
    const before = jobs.get(id);
    await jobs.remove(id);
    this.counts.update(before, undefined);
  }

  /** Runs `fn` with the jobs while no other change of jobs runs. */
  private exclusive<T>(fn: (jobs: JobStore) => Promise<T>): Promise<T> {
    const jobs = this.loaded();
    return this.options.store.withLock(lockKey, () => fn(jobs));
  }

  private loaded(): JobStore {
    if (!this.store) throw new Error('The scheduler has not loaded its jobs: call load() or start() first');
    return this.store;
  }

  /** The job with `id`, if `actor` may change it. */
  private permitted(jobs: JobStore, id: string, actor: SchedulerActor, verb: string): Job {
    const job = jobs.get(normalizeJobId(id));
    if (!job) throw new ScheduleError('not-found', `no scheduled job has the id ${JSON.stringify(id.trim())}; list the jobs to see their ids`);
    if (!actor.admin && actor.id !== job.creator.id) {
      throw new ScheduleError('forbidden', `only the creator of job ${jobLabel(job)} (${job.creator.name ?? job.creator.id}) or an admin may ${verb} it`);
    }
    return job;
  }

  private checkCaps(personId: string, sessionKey: string): void {
    const person = this.counts.ofCreator(personId);
    const conversation = this.counts.ofConversation(sessionKey);
    const { maxJobsPerPerson, maxJobsPerConversation } = this.settings;
    if (person >= maxJobsPerPerson) {
      throw new ScheduleError('limit', `you already have ${person} active or paused scheduled jobs, the most one person may have (${maxJobsPerPerson}); cancel one first`);
    }
    if (conversation >= maxJobsPerConversation) {
      throw new ScheduleError('limit', `this conversation already has ${conversation} active or paused scheduled jobs, the most one conversation may have (${maxJobsPerConversation}); cancel one first`);
    }
  }

  /** Sends a notice to the job's owner in the background; a failure is logged. */
  private tell(job: Job, text: string): void {
    const sending = Promise.resolve()
      .then(() => this.options.notify(job, text))
      .catch((error: unknown) => this.log(`schedule: job ${job.id}: could not notify its owner: ${message(error)}`))
      .finally(() => this.notices.delete(sending));
    this.notices.add(sending);
  }

  private iso(job: Job, ms: number): string {
    return formatIsoInZone(ms, job.timezone);
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * A conversation's scheduled follow-ups on Workers: the gateway's own `Scheduler` (job format,
 * schedules, missed-run policy, failure notices) over the conversation object's storage, its one
 * timer kept as the object's alarm. The object is woken when a job is due even if it was evicted
 * meanwhile; then the scheduler is started again from storage, as after a restart on Node.
 */
import { Scheduler, type Job, type RunOutcome, type SchedulerSettings } from '../gateway/scheduler/index.ts';
import type { Store } from '../store/store.ts';

/** What a conversation's jobs need from its object. */
export interface ConversationJobsOptions {
  store: Store;
  /** The object's storage: its alarm is the scheduler's timer. */
  storage: DurableObjectStorage;
  /** Runs the job's turn in the conversation and delivers its answer. */
  run(job: Job, scheduledFor: number): Promise<RunOutcome>;
  /** Tells the job's owner something in the conversation (failures in a row, a pause). */
  notify(job: Job, text: string): Promise<void>;
  settings: Partial<SchedulerSettings>;
  log(line: string): void;
}

/** One conversation's jobs. */
export class ConversationJobs {
  readonly #options: ConversationJobsOptions;
  #scheduler: Promise<Scheduler> | undefined;
  /** The scheduler's timer: what to call, and when (the alarm is set to it). */
  #timer: { callback: () => Promise<void>; at: number } | undefined;

  constructor(options: ConversationJobsOptions) {
    this.#options = options;
  }

  /** The scheduler, started on first use (runs missed while the object slept are settled then). */
  scheduler(): Promise<Scheduler> {
    if (!this.#scheduler) {
      const options = this.#options;
      const scheduler = new Scheduler({
        store: options.store,
        run: (job, scheduledFor) => {
          // How late the alarm fired, for the log (and the benchmark).
          options.log(JSON.stringify({ event: 'job.fired', job: job.id, latenessMs: Math.max(0, Date.now() - scheduledFor) }));
          return options.run(job, scheduledFor);
        },
        notify: options.notify,
        settings: options.settings,
        log: options.log,
        setTimer: (callback, ms) => {
          const timer = { callback, at: Date.now() + ms };
          this.#timer = timer;
          void this.#alarmNoLaterThan(timer.at);
          return timer;
        },
        clearTimer: (handle) => {
          if (this.#timer === handle) this.#timer = undefined;
        },
      });
      this.#scheduler = scheduler.start().then(
        () => scheduler,
        (error: unknown) => {
          this.#scheduler = undefined;
          throw error;
        },
      );
    }
    return this.#scheduler;
  }

  /** Fires what is due (its runs included) and waits until they are recorded. */
  async fireDue(): Promise<void> {
    const scheduler = await this.scheduler();
    const timer = this.#timer;
    if (timer && timer.at <= Date.now()) {
      this.#timer = undefined;
      await timer.callback();
    }
    await scheduler.idle();
  }

  /** When the next job is due (ms since the epoch), if any. */
  get nextAt(): number | undefined {
    return this.#timer?.at;
  }

  /** Brings the object's alarm forward to `at` when it is set later (or not at all). */
  async #alarmNoLaterThan(at: number): Promise<void> {
    const { storage } = this.#options;
    const current = await storage.getAlarm();
    if (current === null || current > at) await storage.setAlarm(at);
  }
}

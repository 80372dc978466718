/**
 * What the scheduler is given: its limits and policies with their defaults, the gateway's parts it
 * works through (the store, the run and notify functions, the clock and timer), and the shapes its
 * callers read back.
 */
import type { Store } from '../../store/store.ts';
import type { NextRunDescription } from './describe-next-run.ts';
import type { Job, JobState } from './job.ts';
import type { RunOutcome } from './run-outcome.ts';

/** Limits and policies; every one has a default. */
export interface SchedulerSettings {
  /** IANA zone for jobs that name none (default: this machine's zone). */
  timezone: string;
  /** Shortest gap between runs of a recurring job (default 5 minutes). */
  minIntervalMs: number;
  /** How late a missed run may be and still run once with `run_once` (default 6 hours). */
  graceMs: number;
  /** Active or paused jobs one person may have (default 25). */
  maxJobsPerPerson: number;
  /** Active or paused jobs one conversation may have (default 50). */
  maxJobsPerConversation: number;
  /** Whether a job's own turn may create jobs (default false). */
  allowJobsFromJobs: boolean;
  /** Failures in a row at which the owner is told (default 3). */
  failureNoticeAfter: number;
  /** Failures in a row at which the job is paused (default 10). */
  pauseAfter: number;
  /** How long a done job stays listed before it is removed (default 1 day). */
  doneRetentionMs: number;
}

/** What the gateway gives the scheduler. */
export interface SchedulerOptions {
  store: Store;
  /**
   * Runs the job's turn for `scheduledFor` and resolves once it has finished and its answer was
   * delivered (or not). A rejection is recorded as an error of the run.
   */
  run(job: Job, scheduledFor: number): Promise<RunOutcome>;
  /** Tells the job's owner something in the job's conversation (repeated failures, a pause). */
  notify(job: Job, text: string): Promise<void>;
  settings?: Partial<SchedulerSettings>;
  /** The clock, in milliseconds since the epoch (default `Date.now`). */
  now?: () => number;
  /**
   * Sets the one timer (default `setTimeout`, unref'd so it keeps no process alive). The callback's
   * promise settles once the wake it starts has claimed or skipped what was due; it never rejects.
   */
  setTimer?: (callback: () => Promise<void>, ms: number) => unknown;
  clearTimer?: (handle: unknown) => void;
  log?: (line: string) => void;
}

/** A created job and its first run, described for the model. */
export interface CreatedJob {
  job: Job;
  nextRun: NextRunDescription;
}

/** Which jobs {@link Scheduler.list} returns; every field given must match. */
export interface JobFilter {
  sessionKey?: string;
  creatorId?: string;
  state?: JobState;
}

/** Every setting's default but the zone (this machine's, looked up when a job first needs it). */
export const schedulerDefaults: Omit<SchedulerSettings, 'timezone'> = {
  minIntervalMs: 5 * 60_000,
  graceMs: 6 * 3_600_000,
  maxJobsPerPerson: 25,
  maxJobsPerConversation: 50,
  allowJobsFromJobs: false,
  failureNoticeAfter: 3,
  pauseAfter: 10,
  doneRetentionMs: 86_400_000,
};

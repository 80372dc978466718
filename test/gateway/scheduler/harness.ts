/**
 * A scheduler on an injected clock and injected timers, with a `run` and a `notify` that record
 * their calls. Time moves only when a test says so; after each timer the test waits for the
 * scheduler to be idle, so nothing depends on real time.
 */
import type { JobTarget, RunOutcome, SchedulerActor, SchedulerSettings, NewJob, Job } from '../../../src/gateway/scheduler/index.ts';
import { Scheduler } from '../../../src/gateway/scheduler/index.ts';
import { createStore, type Store } from '../../../src/store/index.ts';
import { leastSeat } from '../../../src/tools/turn-seat.ts';
import { makeTempDir } from '../../helpers/temp-dir.ts';

/** 2026-11-24T12:00:00Z, a Tuesday. */
export const start = Date.parse('2026-11-24T12:00:00Z');

/** A store and how to open it again as a restarted process would. */
export interface StoreKind {
  name: string;
  open(): Promise<{ store: Store; reopen(): Store }>;
}

/** The in-memory store (a restart keeps the same store) and the filesystem store (a new store on the same folder). */
export const storeKinds: StoreKind[] = [
  {
    name: 'memory store',
    async open() {
      const store = createStore({ driver: 'memory' });
      return { store, reopen: () => store };
    },
  },
  {
    name: 'filesystem store',
    async open() {
      const base = await makeTempDir('operator-scheduler-');
      return { store: createStore({ driver: 'fs', base }), reopen: () => createStore({ driver: 'fs', base }) };
    },
  },
];

interface Timer {
  at: number;
  callback: () => Promise<void>;
}

/** A clock and timers that move only when told. */
export class FakeClock {
  now: number;
  private timers = new Map<number, Timer>();
  private nextHandle = 1;

  constructor(now = start) {
    this.now = now;
  }

  readonly read = () => this.now;

  readonly setTimer = (callback: () => Promise<void>, ms: number): unknown => {
    const handle = this.nextHandle++;
    this.timers.set(handle, { at: this.now + ms, callback });
    return handle;
  };

  readonly clearTimer = (handle: unknown): void => {
    this.timers.delete(handle as number);
  };

  /** How many timers are armed. */
  get armed(): number {
    return this.timers.size;
  }

  /** The earliest armed timer, removed, if it is due by `until`. */
  takeDue(until: number): Timer | undefined {
    let earliest: [number, Timer] | undefined;
    for (const entry of this.timers) if (entry[1].at <= until && (!earliest || entry[1].at < earliest[1].at)) earliest = entry;
    if (!earliest) return undefined;
    this.timers.delete(earliest[0]);
    return earliest[1];
  }
}

/** One recorded call of `run`. */
export interface RunCall {
  job: Job;
  scheduledFor: number;
  at: number;
}

export interface HarnessOptions {
  store: Store;
  clock?: FakeClock;
  settings?: Partial<SchedulerSettings>;
  /** The outcome of each run (default: ok, delivered). */
  outcome?: (call: RunCall) => Promise<RunOutcome> | RunOutcome;
}

/** A scheduler under test and what it did. */
export class Harness {
  readonly clock: FakeClock;
  readonly scheduler: Scheduler;
  readonly runs: RunCall[] = [];
  readonly notices: { job: Job; text: string }[] = [];
  readonly lines: string[] = [];

  constructor(options: HarnessOptions) {
    this.clock = options.clock ?? new FakeClock();
    const outcome = options.outcome ?? (() => ({ status: 'ok', delivery: { status: 'delivered' } }) satisfies RunOutcome);
    this.scheduler = new Scheduler({
      store: options.store,
      run: async (job, scheduledFor) => {
        const call = { job, scheduledFor, at: this.clock.now };
        this.runs.push(call);
        return outcome(call);
      },
      notify: async (job, text) => {
        this.notices.push({ job, text });
      },
      now: this.clock.read,
      setTimer: this.clock.setTimer,
      clearTimer: this.clock.clearTimer,
      settings: { timezone: 'Europe/Berlin', ...options.settings },
      log: (line) => this.lines.push(line),
    });
  }

  /**
   * Moves the clock forward by `ms`, firing each timer at its time and waiting for the wake it
   * starts, and (unless `waitForRuns` is false, for runs a test holds open) for the runs it started
   * to be recorded.
   */
  async advance(ms: number, { waitForRuns = true } = {}): Promise<void> {
    const until = this.clock.now + ms;
    for (let timer = this.clock.takeDue(until); timer; timer = this.clock.takeDue(until)) {
      this.clock.now = Math.max(this.clock.now, timer.at);
      await timer.callback();
      if (waitForRuns) await this.scheduler.idle();
    }
    this.clock.now = until;
  }

  /**
   * Sets the clock `ms` ahead at once (a clock change, or a machine that slept), then fires the
   * timer that was armed, as the system does once it notices.
   */
  async jump(ms: number): Promise<void> {
    this.clock.now += ms;
    await this.advance(0);
  }

  /** The scheduled times of the recorded runs of job `id`, as ISO strings in UTC. */
  runTimes(id: string): string[] {
    return this.runs.filter((call) => call.job.id === id).map((call) => new Date(call.scheduledFor).toISOString());
  }
}

export const ada: SchedulerActor = { id: 'user-ada', name: 'Ada', admin: false, fromJob: false };
export const bob: SchedulerActor = { id: 'user-bob', name: 'Bob', admin: false, fromJob: false };
export const admin: SchedulerActor = { id: 'user-root', name: 'Root', admin: true, fromJob: false };

export function target(conversationId = 'chat-1'): JobTarget {
  return { sessionKey: `telegram:${conversationId}`, address: { platform: 'telegram', conversationId }, scope: 'dm' };
}

/** Create arguments with a prompt, a target and a profile; `schedule` supplies the schedule. */
export function newJob(schedule: Partial<NewJob>, conversationId = 'chat-1'): NewJob {
  return { prompt: 'Check the deploy and report', target: target(conversationId), profile: 'default', seat: leastSeat, ...schedule };
}

/** A promise and its resolve function, for runs a test finishes when it wants to. */
export function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((done) => (resolve = done));
  return { promise, resolve };
}

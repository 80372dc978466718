/**
 * The scheduler with 10,000 active jobs on the filesystem store: the heap it holds per job, the
 * CPU it uses while nothing is due (one timer, no per-job polling), the time a restart takes to
 * load the jobs and arm the timer, and how late jobs fire with real timers when 2,000 more fall
 * due within three seconds (each run claimed and settled in the store, `run` resolving at once).
 *
 * The jobs look like real ones: a prompt of about 100 characters, a Telegram target, a creator
 * with a name; half run every few hours, half on one of a few cron expressions in a few zones.
 */
import { rm } from 'node:fs/promises';
import { Scheduler, type NewJob, type SchedulerActor } from '../src/gateway/scheduler/index.ts';
import { createStore } from '../src/store/unstorage-store.ts';
import { leastSeat } from '../src/tools/turn-seat.ts';
import { benchHome, collectGarbage, elapsedMs, median, quantile, type BenchResult } from './lib.ts';

const JOBS = 10_000;
const DUE = 2_000;
const IDLE_MS = 5_000;
/**
 * Waited before each idle measurement: after a burst of allocation V8's background threads (sweeping,
 * the memory reducer's GCs, the compiler) keep working for seconds, and they count in cpuUsage.
 */
const SETTLE_MS = 5_000;
const RELOADS = 5;
/** The 2,000 due jobs fall due over this long, starting this long after the first is created (creating them takes about a second). */
const DUE_SPREAD_MS = 3_000;
const DUE_LEAD_MS = 5_000;

const settings = { maxJobsPerPerson: 100_000, maxJobsPerConversation: 100_000, timezone: 'Europe/Berlin' };
const crons = ['0 9 * * 1-5', '30 7 * * *', '0 18 * * 5', '15 */6 * * *'];
const zones = ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'UTC'];
const words = 'check the deploy pipeline and post a short summary of failed builds open incidents and pending reviews'.split(' ');

export default async function run(): Promise<BenchResult[]> {
  const base = benchHome('operator-bench-scheduler-');
  try {
    await createJobs(base);
    const reloadMs = await timeReloads(base);
    // The floor: this process idle, warmed up by the phases above, with no scheduler running.
    await sleep(SETTLE_MS);
    const floorCpuPerSecond = await idleCpu();

    collectGarbage();
    const before = process.memoryUsage().heapUsed;
    const store = createStore({ driver: 'fs', base });
    let fired: (scheduledFor: number) => void = () => {};
    let wakes = 0;
    const scheduler = new Scheduler({
      store,
      settings,
      // The default timer, counting how often it fires.
      setTimer: (callback, ms) =>
        setTimeout(() => {
          wakes++;
          void callback();
        }, ms).unref(),
      clearTimer: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
      run: async (_job, scheduledFor) => {
        fired(scheduledFor);
        return { status: 'ok', delivery: { status: 'delivered' } };
      },
      notify: async () => {},
    });
    await scheduler.start();
    collectGarbage();
    const bytesPerJob = (process.memoryUsage().heapUsed - before) / JOBS;

    await sleep(SETTLE_MS);
    const wakesBefore = wakes;
    const idleCpuPerSecond = await idleCpu();
    const idleWakes = wakes - wakesBefore;
    const addedCpu = idleCpuPerSecond - floorCpuPerSecond;

    const lateness = await timeLateness(scheduler, (listener) => (fired = listener));
    await scheduler.stop();
    await store.close();

    const gc = (globalThis as { gc?: unknown }).gc ? '' : ' (run with --expose-gc for a stable figure)';
    return [
      { name: `heap held per job, ${JOBS.toLocaleString('en')} active jobs`, value: bytesPerJob, unit: 'bytes', target: '<= 2048', pass: bytesPerJob <= 2048, note: `after a restart from the fs store${gc}` },
      { name: 'CPU while idle, no scheduler (floor)', value: floorCpuPerSecond, unit: 'ms/s', note: `over ${IDLE_MS / 1000} s, all schedulers stopped, ${SETTLE_MS / 1000} s after the last` },
      { name: 'CPU while idle with 10,000 jobs armed', value: idleCpuPerSecond, unit: 'ms/s', note: `over ${IDLE_MS / 1000} s, ${SETTLE_MS / 1000} s after start-up` },
      { name: 'idle CPU added by the scheduler', value: addedCpu, unit: 'ms/s', target: '<= 0.5', pass: addedCpu <= 0.5 },
      { name: 'timer wakes while idle', value: idleWakes, unit: 'wakes', target: '0 in 5 s', pass: idleWakes === 0, note: 'the one timer is never set more than 60 s ahead' },
      { name: 'restart: load 10,000 jobs and arm (median)', value: reloadMs, unit: 'ms', target: '<= 1000', pass: reloadMs <= 1000, note: `fs store, ${RELOADS} restarts` },
      { name: `firing lateness p99, ${DUE.toLocaleString('en')} jobs due within ${DUE_SPREAD_MS / 1000} s`, value: lateness.p99, unit: 'ms', target: '<= 1000', pass: lateness.p99 <= 1000, note: `p50 ${lateness.p50.toFixed(1)} ms, max ${lateness.max.toFixed(1)} ms; real timers, each run claimed and recorded in the fs store, one compaction of all jobs among them` },
    ];
  } finally {
    await rm(base, { recursive: true, force: true });
  }
}

/** Creates the 10,000 jobs through `create`, as the tool would, due hours from now. */
async function createJobs(base: string): Promise<void> {
  const store = createStore({ driver: 'fs', base });
  const scheduler = new Scheduler({ store, settings, run: async () => ({ status: 'ok' }), notify: async () => {} });
  await scheduler.load();
  for (let index = 0; index < JOBS; index++) {
    const schedule = index % 2 === 0 ? { every: `${2 + (index % 5)}h` } : { cron: crons[index % crons.length], timezone: zones[index % zones.length] };
    await scheduler.create(job(index, schedule), creator(index));
  }
  await store.close();
}

/** Median time for a new process's scheduler to load the jobs and arm its timer. */
async function timeReloads(base: string): Promise<number> {
  const samples: number[] = [];
  for (let index = 0; index < RELOADS; index++) {
    const store = createStore({ driver: 'fs', base });
    const scheduler = new Scheduler({ store, settings, run: async () => ({ status: 'ok' }), notify: async () => {} });
    const start = process.hrtime.bigint();
    await scheduler.start();
    samples.push(elapsedMs(start));
    await scheduler.stop();
    await store.close();
  }
  return median(samples);
}

/** Adds 2,000 jobs that fall due within a few seconds and measures how late each run starts. */
async function timeLateness(scheduler: Scheduler, listen: (listener: (scheduledFor: number) => void) => void): Promise<{ p50: number; p99: number; max: number }> {
  const lateness: number[] = [];
  let allFired!: () => void;
  const done = new Promise<void>((resolve) => (allFired = resolve));
  listen((scheduledFor) => {
    lateness.push(Date.now() - scheduledFor);
    if (lateness.length === DUE) allFired();
  });
  // Due times start after the last job is created (a job due in the past is refused, ending the run).
  const firstDue = Date.now() + DUE_LEAD_MS;
  for (let index = 0; index < DUE; index++) {
    const dueAt = firstDue + Math.floor((index * DUE_SPREAD_MS) / DUE);
    await scheduler.create(job(JOBS + index, { at: new Date(dueAt).toISOString() }), creator(index));
  }
  // A guard so a broken scheduler ends the benchmark instead of hanging it (the scheduler's timer is unref'd).
  const guard = setTimeout(() => allFired(), 60_000);
  await done;
  clearTimeout(guard);
  return { p50: quantile(lateness, 0.5), p99: quantile(lateness, 0.99), max: Math.max(...lateness) };
}

function job(index: number, schedule: Partial<NewJob>): NewJob {
  const conversationId = String(100_000_000 + Math.floor(index / 10));
  let prompt = '';
  for (let word = 0; prompt.length < 100; word++) prompt += `${words[(index + word * 7) % words.length]} `;
  return {
    prompt: prompt.trim(),
    name: index % 3 === 0 ? `digest ${index}` : undefined,
    target: { sessionKey: `telegram:${conversationId}`, address: { platform: 'telegram', conversationId }, scope: 'dm' },
    profile: 'default',
    seat: leastSeat,
    ...schedule,
  };
}

function creator(index: number): SchedulerActor {
  return { id: `telegram:${200_000_000 + Math.floor(index / 5)}`, name: `Person ${Math.floor(index / 5)}`, admin: false, fromJob: false };
}

/** CPU used by this process (all its threads) per second of an idle wait, in ms. */
async function idleCpu(): Promise<number> {
  collectGarbage();
  const start = process.cpuUsage();
  await sleep(IDLE_MS);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000 / (IDLE_MS / 1000);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

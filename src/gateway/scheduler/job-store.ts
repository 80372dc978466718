/**
 * Durable jobs over the {@link Store}: every job is held in memory, and every change is one
 * appended record, written before the change is visible (and so before anything acts on it).
 *
 * Layout: a snapshot value `schedule:snapshot` (`{ generation, jobs }`) and the log
 * `schedule:log:<generation>` of the jobs changed or removed since, one JSON record a line. Loading
 * reads the snapshot and replays its generation's log; a torn last record (a crash mid-append) is
 * skipped. When the log holds more records than `max(compactAfter, number of jobs)`, the jobs are
 * written as the snapshot of the next generation and only then is the old log deleted: a crash in
 * between leaves a complete snapshot, and logs of other generations are deleted at the next load.
 * Appends stay as cheap as the store's appends; a reload costs one value read and at most one
 * log's worth of records, however long the gateway has run.
 *
 * One process per store, like the journal: another process's changes are seen after a restart.
 */
import type { Store } from '../../store/store.ts';
import { isJob, type Job } from './job.ts';

/** The persisted jobs, all in memory. */
export interface JobStore {
  /** The job with this (normalised) id. */
  get(id: string): Job | undefined;
  /** Every job, in no particular order. */
  jobs(): IterableIterator<Job>;
  /** How many jobs there are. */
  readonly size: number;
  /** Stores a new or changed job; it is durable and visible through {@link get} when this resolves. */
  put(job: Job): Promise<void>;
  /** Removes a job (no-op for an unknown id); durable when this resolves. */
  remove(id: string): Promise<void>;
}

/** Options of {@link openJobStore}. */
export interface JobStoreOptions {
  /** The fewest log records that lead to a compaction (default 1,000). */
  compactAfter?: number;
  /** Where a failed compaction is reported (it is tried again at the next change). */
  log?: (line: string) => void;
}

/** The snapshot value. */
interface Snapshot {
  generation: number;
  jobs: Job[];
}

/** One log record: a job as it now is, or the id of a removed job. */
type LogRecord = { j: Job } | { x: string };

const snapshotKey = 'schedule:snapshot';
const logPrefix = 'schedule:log:';

/**
 * Loads the jobs of `store` and returns a {@link JobStore} over them.
 *
 * @example
 * const jobs = await openJobStore(store);
 * await jobs.put({ ...jobs.get(id)!, state: 'paused' });
 */
export async function openJobStore(store: Store, options: JobStoreOptions = {}): Promise<JobStore> {
  const compactAfter = options.compactAfter ?? 1_000;
  const log = options.log ?? (() => {});
  const jobs = new Map<string, Job>();

  const snapshot = await store.get<Partial<Snapshot>>(snapshotKey);
  let generation = typeof snapshot?.generation === 'number' ? snapshot.generation : 0;
  for (const job of Array.isArray(snapshot?.jobs) ? snapshot.jobs : []) if (isJob(job)) jobs.set(job.id, job);
  const lines = await store.readLog(logKey(generation));
  for (const line of lines) {
    const record = parse(line);
    if (!record) continue;
    if ('j' in record) jobs.set(record.j.id, record.j);
    else jobs.delete(record.x);
  }
  let records = lines.length;
  await deleteOtherLogs(store, generation);

  /** Writes run one at a time, so records land in the order the changes were made. */
  let tail: Promise<unknown> = Promise.resolve();

  function write(record: LogRecord, apply: () => void): Promise<void> {
    const done = tail.then(async () => {
      await store.append(logKey(generation), JSON.stringify(record));
      apply();
      records++;
    });
    // A compaction runs after the write that called for it has resolved (a claim need not wait for
    // it), and before the next write.
    tail = done.then(
      () => (records > Math.max(compactAfter, jobs.size) ? compact() : undefined),
      () => {},
    );
    return done;
  }

  /** Writes the snapshot of the next generation, then deletes the old log. Never rejects. */
  async function compact(): Promise<void> {
    const next = generation + 1;
    try {
      await store.set(snapshotKey, { generation: next, jobs: [...jobs.values()] } satisfies Snapshot);
    } catch (error) {
      log(`schedule: compaction failed, tried again at the next change: ${error instanceof Error ? error.message : String(error)}`);
      return;
    }
    const previous = generation;
    generation = next;
    records = 0;
    // The snapshot is complete: the old log is no longer read, so a failed delete only leaves a file for the next load.
    await store.deleteLog(logKey(previous)).catch(() => {});
  }

  return {
    get: (id) => jobs.get(id),
    jobs: () => jobs.values(),
    get size() {
      return jobs.size;
    },
    put: (job) => write({ j: job }, () => jobs.set(job.id, job)),
    remove: (id) => write({ x: id }, () => jobs.delete(id)),
  };
}

function logKey(generation: number): string {
  return `${logPrefix}${generation}`;
}

/** Deletes logs left by other generations (a crash between a compaction's snapshot and its delete). */
async function deleteOtherLogs(store: Store, generation: number): Promise<void> {
  // Listings name a log by its key on the filesystem and by its records (`<log key>:<n>`) elsewhere.
  const generations = new Set((await store.list(logPrefix)).map((key) => key.slice(logPrefix.length).split(':')[0]));
  for (const other of generations) if (other !== String(generation)) await store.deleteLog(`${logPrefix}${other}`);
}

/** A record, or undefined for a torn or foreign line. */
function parse(line: string): LogRecord | undefined {
  try {
    const record = JSON.parse(line) as Partial<{ j: unknown; x: unknown }>;
    if (isJob(record.j)) return { j: record.j };
    if (typeof record.x === 'string') return { x: record.x };
    return undefined;
  } catch {
    return undefined;
  }
}

/**
 * A scheduled job as it is persisted: plain JSON, treated as a value (every change makes a new
 * object). The scheduler keeps every job in memory, so the shape stays small: a typical job with a
 * 100-character prompt takes well under 2 KB of heap.
 */
import { randomBytes } from 'node:crypto';
import type { TurnSeat } from '../../tools/turn-seat.ts';

/**
 * When a job runs. `at` runs once. `every` runs at `anchor + k * everyMs` (k >= 0), so a late
 * run does not shift the later ones. `cron` is a 5-field expression read in the job's timezone.
 */
export type JobSchedule =
  | { kind: 'at'; at: number }
  | { kind: 'every'; everyMs: number; anchor: number }
  | { kind: 'cron'; expression: string };

/** Where a job's turn runs and its answer goes. Opaque to the scheduler: the gateway fills it in. */
export interface JobTarget {
  sessionKey: string;
  address: { platform: string; conversationId: string; threadId?: string };
  scope: 'dm' | 'group';
}

/** The person who created a job; the job runs as them, with no more than its {@link Job.seat}. */
export interface JobCreator {
  id: string;
  name?: string;
}

/**
 * What to do with runs missed while the gateway was down (or the machine asleep): `run_once` fires
 * the most recent one if it is within the grace window, `skip` records it as skipped.
 */
export type MissedPolicy = 'run_once' | 'skip';

/** `done`: a one-shot job ran, or a repeat count was used up. */
export type JobState = 'active' | 'paused' | 'done';

/** The last run's outcome: `error` also when the answer could not be delivered. */
export type RunStatus = 'ok' | 'error' | 'skipped';

/** Whether the last run's answer reached the conversation (`silent`: the answer was `[SILENT]`). */
export interface DeliveryRecord {
  status: 'delivered' | 'failed' | 'silent';
  error?: string;
  at: number;
}

/** A run that has started and not yet been settled. Written durably before the run starts. */
export interface JobClaim {
  /** The scheduled time the run is for; it is never run again, even after a crash. */
  scheduledFor: number;
  /** When the run started. */
  at: number;
}

/** The runs of a job whose cost was measured, and what they cost in all. */
export interface JobSpend {
  runs: number;
  usd: number;
}

/** A persisted job. Times are milliseconds since the epoch. */
export interface Job {
  /** Short and typable: 8 lowercase base-32 characters (see {@link newJobId}). */
  id: string;
  name?: string;
  /** What the agent is asked to do when the job fires (a pipeline's goal, with `pipeline`). */
  prompt: string;
  /** A pipeline the job starts in its conversation instead of a turn, with `prompt` as its goal. */
  pipeline?: string;
  schedule: JobSchedule;
  /** IANA zone the schedule is read in (and times are shown in). */
  timezone: string;
  target: JobTarget;
  creator: JobCreator;
  /**
   * The seat of the turn that set the job: its runs get no more, wherever they deliver. Opaque to
   * the scheduler, kept as given. Absent on jobs from before seats were kept: they run with the
   * least seat.
   */
  seat?: TurnSeat;
  /** The profile the job's turns run with (the creator's). */
  profile: string;
  /** How many runs are allowed in all (recurring jobs only); unlimited when absent. */
  repeat?: number;
  /** Runs started so far (a run counts when it is claimed). */
  runs: number;
  missed: MissedPolicy;
  state: JobState;
  pausedReason?: string;
  /** The next scheduled time; `null` when paused, done, or its last run is in flight. */
  nextRunAt: number | null;
  lastRunAt?: number;
  lastStatus?: RunStatus;
  /** Why the last run failed or was skipped. */
  lastError?: string;
  lastDelivery?: DeliveryRecord;
  consecutiveFailures: number;
  /**
   * What its measured runs cost: how many the gateway reported a cost for, and their total in US
   * dollars (the estimate of its next runs is their average). Absent until one is measured.
   */
  spend?: JobSpend;
  claim?: JobClaim;
  createdAt: number;
  /** When the job became done; done jobs are kept for a while so that `list` shows them. */
  doneAt?: number;
  /** Created by a job's own turn. */
  fromJob?: boolean;
}

/** Longest error text kept on a job. */
const maxErrorLength = 500;

/** Crockford's base 32 in lowercase: no i, l, o or u, so an id read aloud or retyped stays the same. */
const idAlphabet = '0123456789abcdefghjkmnpqrstvwxyz';

/** A random job id: 8 characters, 40 bits. The caller checks it against the ids in use. */
export function newJobId(): string {
  // 256 is a multiple of 32, so the low five bits of each byte are uniform.
  return Array.from(randomBytes(8), (byte) => idAlphabet[byte & 31]).join('');
}

/** `id` as typed by a person, in the form ids are stored in (trimmed, lowercase). */
export function normalizeJobId(id: string): string {
  return id.trim().toLowerCase();
}

/** The job's name and id, for messages: `"standup" (k3v9x2ab)` or `k3v9x2ab`. */
export function jobLabel(job: Pick<Job, 'id' | 'name'>): string {
  return job.name ? `${JSON.stringify(job.name)} (${job.id})` : job.id;
}

/** `text` cut to the length kept on a job. */
export function truncateError(text: string): string {
  return text.length > maxErrorLength ? `${text.slice(0, maxErrorLength - 3)}...` : text;
}

/** True for a value with the shape of a stored job (enough to skip foreign or damaged records). */
export function isJob(value: unknown): value is Job {
  if (typeof value !== 'object' || value === null) return false;
  const job = value as Partial<Job>;
  return (
    typeof job.id === 'string' &&
    typeof job.prompt === 'string' &&
    typeof job.schedule === 'object' &&
    job.schedule !== null &&
    typeof job.timezone === 'string' &&
    typeof job.state === 'string' &&
    (job.nextRunAt === null || typeof job.nextRunAt === 'number')
  );
}

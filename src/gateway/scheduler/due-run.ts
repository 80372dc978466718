/**
 * What to do with a job whose next time has come: run it (for which scheduled time) or record it
 * as skipped (and why), and the time after. This is where the missed policy lives:
 *
 * - The time to run is the most recent scheduled time that has passed; earlier ones since the
 *   job's `nextRunAt` (the gateway was down, the machine asleep, the clock jumped) are not run.
 * - Noticed within a minute, a time is on time whatever the policy (a busy event loop, a restart).
 * - Later than that, `run_once` runs it if it is within the grace window; otherwise it is skipped.
 * - A time that comes while the job's previous run is still going is skipped: runs never overlap.
 */
import { formatDuration } from './duration.ts';
import type { Job } from './job.ts';
import { latestRunAtOrBefore, nextRunAfter } from './next-run.ts';
import { formatIsoInZone } from './zoned-time.ts';

/** A time noticed within this of its schedule is on time, not missed. */
const onTimeMs = 60_000;

/**
 * The decision for a due job. `following` is the job's next scheduled time after now (`null`:
 * none). `missedFrom` is set when earlier times, from it up to `scheduledFor`, are left out.
 */
export type DueRun =
  | { action: 'run'; scheduledFor: number; following: number | null; missedFrom?: number }
  | { action: 'skip'; reason: string; following: number | null; missedFrom?: number };

/**
 * Decides for an active `job` whose `nextRunAt` is at or before `now` (taken as `now` when null).
 * `running`: a run of the job is still in flight.
 */
export function dueRun(job: Job, now: number, { graceMs, running }: { graceMs: number; running: boolean }): DueRun {
  const nextRunAt = job.nextRunAt ?? now;
  // Usually nextRunAt is the most recent time, which one look-up of the time after it shows
  // (croner costs about 0.1 ms a call); only when that one has passed too is the latest looked for.
  let latest = nextRunAt;
  let following = nextRunAfter(job.schedule, job.timezone, latest);
  if (following !== null && following <= now) {
    latest = Math.max(latest, latestRunAtOrBefore(job.schedule, job.timezone, now) ?? latest);
    following = nextRunAfter(job.schedule, job.timezone, now);
  }
  const missed = latest > nextRunAt ? { missedFrom: nextRunAt } : {};
  const late = now - latest;
  const at = formatIsoInZone(latest, job.timezone);

  if (running) return { action: 'skip', reason: `the run for ${at} was skipped: the previous run was still going`, following, ...missed };
  if (late <= onTimeMs || (job.missed === 'run_once' && late <= graceMs)) return { action: 'run', scheduledFor: latest, following, ...missed };
  const why = job.missed === 'skip' ? 'its missed policy is skip' : `more than the grace window of ${formatDuration(graceMs)}`;
  return { action: 'skip', reason: `missed ${at} by ${formatDuration(late)} (the gateway was not running or the machine was asleep); ${why}`, following, ...missed };
}

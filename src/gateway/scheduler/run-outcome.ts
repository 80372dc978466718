/**
 * What a run's outcome does to its job: the last status and delivery, the failure streak, and
 * whether the owner is told or the job paused. A run whose answer could not be delivered is an
 * error, never `ok`: the person did not get what the job was for.
 */
import { jobLabel, truncateError, type DeliveryRecord, type Job } from './job.ts';

/** How the answer of a run reached the conversation (`silent`: the answer was `[SILENT]`, nothing sent). */
export type RunDelivery = { status: 'delivered' } | { status: 'failed'; error: string } | { status: 'silent' };

/**
 * What the gateway reports when a job's turn has finished and its answer was delivered (or not).
 * `delivery` is absent only when nothing reached the point of delivery (an error before the answer).
 * `skipped`: the run did not start (a spending cap it would pass; `reason` says which), and the
 * conversation was told. `costUsd`: what the run spent, where the gateway measured it.
 */
export type RunOutcome = ({ status: 'ok' } | { status: 'error'; error: string } | { status: 'skipped'; reason: string }) & { delivery?: RunDelivery; costUsd?: number };

/** When failures in a row are reported and when they pause the job. */
export interface FailurePolicy {
  /** Failures in a row at which the owner is told (once per streak). */
  failureNoticeAfter: number;
  /** Failures in a row at which the job is paused (and the owner told). */
  pauseAfter: number;
}

/** The error recorded for a run that was claimed when the gateway stopped. */
export const interruptedError = 'interrupted: the gateway stopped during this run';

/**
 * The job after the run it claimed ended with `outcome` at `now`, and the message for its owner,
 * if any. The claim is cleared; a job with no next run becomes done (unless paused meanwhile). A
 * skipped run is no failure and not one of `repeat`'s runs: the job goes on to `following`, the
 * time after the claimed one, should the claim have used up its runs.
 */
export function settleRun(job: Job, outcome: RunOutcome, policy: FailurePolicy, now: number, following: number | null = null): { job: Job; notice?: string } {
  if (outcome.status === 'skipped') return { job: settleSkip(job, outcome.reason, now, following) };
  const delivery = outcome.delivery;
  const error =
    outcome.status === 'error'
      ? outcome.error
      : delivery?.status === 'failed'
        ? `the answer could not be delivered: ${delivery.error}`
        : undefined;
  const failures = error === undefined ? 0 : job.consecutiveFailures + 1;
  let settled: Job = {
    ...job,
    claim: undefined,
    lastRunAt: job.claim?.at ?? now,
    lastStatus: error === undefined ? 'ok' : 'error',
    lastError: error === undefined ? undefined : truncateError(error),
    lastDelivery: delivery && deliveryRecord(delivery, now),
    consecutiveFailures: failures,
    ...(outcome.costUsd !== undefined && { spend: { runs: (job.spend?.runs ?? 0) + 1, usd: (job.spend?.usd ?? 0) + outcome.costUsd } }),
  };
  if (settled.state === 'active' && settled.nextRunAt === null) settled = { ...settled, state: 'done', doneAt: now };
  if (error === undefined) return { job: settled };

  const label = jobLabel(job);
  const lastError = truncateError(error);
  if (failures >= policy.pauseAfter && settled.state === 'active') {
    settled = { ...settled, state: 'paused', nextRunAt: null, pausedReason: `paused after ${failures} failures in a row; last error: ${lastError}` };
    return {
      job: settled,
      notice: `Scheduled job ${label} has failed ${failures} times in a row and is now paused (last error: ${lastError}). Resume it with "/schedule resume ${job.id}" once the cause is fixed.`,
    };
  }
  if (failures === policy.failureNoticeAfter && settled.state === 'active') {
    return {
      job: settled,
      notice: `Scheduled job ${label} has failed ${failures} times in a row (last error: ${lastError}). It keeps running; after ${policy.pauseAfter} failures in a row it will be paused.`,
    };
  }
  return { job: settled };
}

/** `job` after its claimed run was skipped for `reason`: the run given back, the claim cleared. */
function settleSkip(job: Job, reason: string, now: number, following: number | null): Job {
  const runs = Math.max(0, job.runs - 1);
  // The claim took the job's last run (`repeat`) or its one time: the next time, if any, is its again.
  const nextRunAt = job.state === 'active' && job.nextRunAt === null ? following : job.nextRunAt;
  const done = job.state === 'active' && nextRunAt === null;
  return { ...job, claim: undefined, runs, nextRunAt, lastRunAt: job.claim?.at ?? now, lastStatus: 'skipped', lastError: truncateError(reason), ...(done && { state: 'done' as const, doneAt: now }) };
}

function deliveryRecord(delivery: RunDelivery, at: number): DeliveryRecord {
  return delivery.status === 'failed' ? { status: 'failed', error: truncateError(delivery.error), at } : { status: delivery.status, at };
}

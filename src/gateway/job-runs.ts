/**
 * Scheduled jobs as the gateway runs them: a job's turn waits for its conversation's queue like a
 * person's message (never inside another turn) and answers there, with the profile the job was
 * created with; each run is reported with how late it fired and how it went. A run that would pass
 * the job's spending caps does not start: it is skipped, and its conversation told (see
 * `budget/job-spending.ts`); a turn's run reports what it cost, for the job's estimate.
 */
import type { ChannelAdapter, InboundMessage } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';
import type { SessionQueue } from '../core/session-queue.ts';
import type { JobRunSkip, JobSpending } from './budget/job-spending.ts';
import type { Conversations } from './conversations.ts';
import type { OpsEvents } from './ops/ops-events.ts';
import { scheduledMessage } from './scheduled-turn.ts';
import { describeNextRun, type Job, type RunOutcome } from './scheduler/index.ts';
import type { TurnRunner } from './turn-runner.ts';

/** The gateway's parts a job's run uses. */
export interface JobRunParts {
  adapters: ReadonlyMap<string, ChannelAdapter>;
  queue: SessionQueue;
  conversations: Conversations;
  runner: TurnRunner;
  /** Records where the job's conversation lives (as for a person's message). */
  remember(message: InboundMessage): void;
  ops: OpsEvents;
  /** The jobs' spending: whether a run may start under the job caps, and what a run cost. */
  jobs: Pick<JobSpending, 'check' | 'told' | 'runCost'>;
  log(line: string): void;
  /** Starts the pipeline a job names (`schedule --pipeline`), as its run `run`. */
  startPipeline(job: Job, run: string): Promise<RunOutcome>;
}

/** The id of a job's run, as its spending caps name it: its due time, `2026-11-30T09:00:00.000Z`. */
export function jobRunId(scheduledFor: number): string {
  return new Date(scheduledFor).toISOString();
}

/**
 * Runs a due job (its turn, or the pipeline it starts), unless the job's spending caps skip it,
 * and reports how late it fired and how it went.
 */
export async function fireJob(parts: JobRunParts, job: Job, scheduledFor: number): Promise<RunOutcome> {
  const latenessMs = Date.now() - scheduledFor;
  // The caps are checked again at every call: a check that fails here lets the run start.
  const skip = await parts.jobs.check(job).catch((error: unknown) => void parts.log(`schedule: job ${job.id}: spending caps not checked before its run: ${errorMessage(error)}`));
  const outcome = await (skip ? skipRun(parts, job, skip) : job.pipeline ? parts.startPipeline(job, jobRunId(scheduledFor)) : runJobTurn(parts, job, scheduledFor));
  const { platform } = job.target.address;
  const why = outcome.status === 'error' ? { error: outcome.error } : outcome.status === 'skipped' ? { reason: outcome.reason } : {};
  parts.ops.emit({ type: 'job.fired', platform, job: job.id, latenessMs, status: outcome.status, ...why });
  return outcome;
}

/** A run the job's caps do not let start: its conversation is told (the first time today), never nothing. */
async function skipRun(parts: JobRunParts, job: Job, skip: JobRunSkip): Promise<RunOutcome> {
  parts.log(`schedule: job ${job.id}: ${skip.reason}`);
  if (!skip.tell) return { status: 'skipped', reason: skip.reason };
  const { address } = job.target;
  const adapter = parts.adapters.get(address.platform);
  if (!adapter) return { status: 'error', error: `no ${address.platform} channel is running (to say the run was skipped: ${skip.reason})` };
  const next = job.nextRunAt === null ? (job.schedule.kind === 'at' ? ' It was its only run.' : '') : ` Next run ${describeNextRun(job.nextRunAt, job.timezone, Date.now()).words}.`;
  try {
    await adapter.send(address, { text: `${skip.notice}${next}` });
  } catch (error) {
    // Not noted as told: the next skip says it.
    return { status: 'error', error: `the run was skipped (${skip.reason}), and saying so failed: ${errorMessage(error)}` };
  }
  await parts.jobs.told(job.id, skip.cap).catch((error: unknown) => parts.log(`schedule: job ${job.id}: its skip was told, but that is not noted (it may be told again): ${errorMessage(error)}`));
  return { status: 'skipped', reason: skip.reason };
}

/** Runs one due job's turn in its conversation; resolves to what happened and what it cost. */
export async function runJobTurn(parts: JobRunParts, job: Job, scheduledFor: number): Promise<RunOutcome> {
  const adapter = parts.adapters.get(job.target.address.platform);
  if (!adapter) return { status: 'error', error: `no ${job.target.address.platform} channel is running` };
  const message = scheduledMessage(job, scheduledFor, Date.now());
  parts.remember(message);
  const run = jobRunId(scheduledFor);
  const outcome = await runInQueue(parts, adapter, job, message, run);
  // Counted in this process as its calls settled; a run that spent nothing (it made no priced call) says nothing of the next ones.
  const costUsd = await parts.jobs.runCost(job.id, run).catch(() => 0);
  return costUsd > 0 ? { ...outcome, costUsd } : outcome;
}

/** The job's turn, in its conversation's queue. */
function runInQueue(parts: JobRunParts, adapter: ChannelAdapter, job: Job, message: InboundMessage, run: string): Promise<RunOutcome> {
  return parts.queue.run(message.sessionKey, async (slot) => {
    // Taken in the queue's slot: a /profile while the job waited replaces the live conversation.
    const live = await parts.conversations.get(message);
    // A job runs with the profile it was created with, also after the conversation was bound to another.
    const conversation = live.profile === job.profile ? live : await parts.conversations.borrow(live, job.profile);
    if (conversation === live) return parts.runner.run(adapter, conversation, message, { job, run, slot });
    live.scheduledRun = true;
    try {
      return await parts.runner.run(adapter, conversation, message, { job, run, slot });
    } finally {
      live.scheduledRun = false;
      conversation.agent.dispose();
    }
  });
}

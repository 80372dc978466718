/**
 * Scheduled jobs as the gateway runs them: a job's turn waits for its conversation's queue like a
 * person's message (never inside another turn) and answers there, with the profile the job was
 * created with; each run is reported with how late it fired and how it went.
 */
import type { ChannelAdapter, InboundMessage } from '../channels/types.ts';
import type { SessionQueue } from '../core/session-queue.ts';
import type { Conversations } from './conversations.ts';
import type { OpsEvents } from './ops/ops-events.ts';
import { scheduledMessage } from './scheduled-turn.ts';
import type { Job, RunOutcome } from './scheduler/index.ts';
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
  /** Starts the pipeline a job names (`schedule --pipeline`). */
  startPipeline(job: Job): Promise<RunOutcome>;
}

/** Runs a due job (its turn, or the pipeline it starts) and reports how late it fired and how it went. */
export async function fireJob(parts: JobRunParts, job: Job, scheduledFor: number): Promise<RunOutcome> {
  const latenessMs = Date.now() - scheduledFor;
  const outcome = await (job.pipeline ? parts.startPipeline(job) : runJobTurn(parts, job, scheduledFor));
  const { platform } = job.target.address;
  parts.ops.emit({ type: 'job.fired', platform, job: job.id, latenessMs, status: outcome.status, ...(outcome.status === 'error' && { error: outcome.error }) });
  return outcome;
}

/** Runs one due job's turn in its conversation; resolves to what happened. */
export async function runJobTurn(parts: JobRunParts, job: Job, scheduledFor: number): Promise<RunOutcome> {
  const adapter = parts.adapters.get(job.target.address.platform);
  if (!adapter) return { status: 'error', error: `no ${job.target.address.platform} channel is running` };
  const message = scheduledMessage(job, scheduledFor, Date.now());
  parts.remember(message);
  return parts.queue.run(message.sessionKey, async (slot) => {
    // Taken in the queue's slot: a /profile while the job waited replaces the live conversation.
    const live = await parts.conversations.get(message);
    // A job runs with the profile it was created with, also after the conversation was bound to another.
    const conversation = live.profile === job.profile ? live : await parts.conversations.borrow(live, job.profile);
    if (conversation === live) return parts.runner.run(adapter, conversation, message, { job, slot });
    live.scheduledRun = true;
    try {
      return await parts.runner.run(adapter, conversation, message, { job, slot });
    } finally {
      live.scheduledRun = false;
      conversation.agent.dispose();
    }
  });
}

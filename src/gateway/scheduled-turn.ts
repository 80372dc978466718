/**
 * A scheduled job's turn as the gateway runs it: a message in the job's conversation, from the
 * job's creator, whose text tells the model that no person typed it.
 */
import type { InboundMessage } from '../channels/types.ts';
import type { TurnContext } from '../tools/tool.ts';
import type { Conversations } from './conversations.ts';
import type { KnownConversations } from './known-conversations.ts';
import { cliActor, findTarget } from './schedule-control.ts';
import type { Job, JobTarget } from './scheduler/index.ts';
import { formatDuration, formatIsoInZone, ScheduleError } from './scheduler/index.ts';

/** The turn of `job` due at `scheduledFor`, as a message the gateway's pipeline takes. */
export function scheduledMessage(job: Job, scheduledFor: number, now: number): InboundMessage {
  const id = `schedule:${job.id}:${scheduledFor}`;
  return {
    id,
    // Unique per job and due time: the ledger's entries of this run are keyed by it.
    dedupeKey: id,
    sessionKey: job.target.sessionKey,
    address: job.target.address,
    scope: job.target.scope,
    sender: { id: job.creator.id, name: job.creator.name },
    text: scheduledPrompt(job, scheduledFor),
    attachments: [],
    mentioned: true,
    receivedAt: now,
    raw: undefined,
  };
}

/**
 * What the model reads: a header marking the turn as a scheduled follow-up (who set it, when it
 * was due, how it repeats), the job's prompt, and how to stay silent.
 */
export function scheduledPrompt(job: Job, scheduledFor: number): string {
  const person = `${job.target.address.platform}:${job.creator.id}`;
  const creator = job.creator.id === cliActor.id ? cliActor.name : job.creator.name ? `${job.creator.name} (${person})` : person;
  const header = [
    `[operator: scheduled follow-up, not typed by a person. Job ${job.id}${job.name ? ` "${job.name}"` : ''}, set by ${creator}`,
    `${describeRepeat(job)}, due ${formatIsoInZone(scheduledFor, job.timezone)}.`,
    'Do what it asks and answer for the conversation. If there is nothing worth saying, answer exactly [SILENT] and nothing is sent.]',
  ].join('; ');
  return `${header}\n\n${job.prompt}`;
}

/** `runs once`, `repeats every 2h`, `repeats on cron "0 9 * * 1" (Europe/Berlin)`. */
function describeRepeat(job: Job): string {
  switch (job.schedule.kind) {
    case 'at':
      return 'runs once';
    case 'every':
      return `repeats every ${formatDuration(job.schedule.everyMs)}`;
    default:
      return `repeats on cron "${job.schedule.expression}" (${job.timezone})`;
  }
}

/**
 * Where a job created in `turn` runs: its own conversation (`deliver` absent or `origin`), or
 * `platform:conversation[:thread]`, one the gateway has talked in (only an admin may aim a job at
 * another conversation). Throws a {@link ScheduleError} saying why not.
 */
export async function jobTarget(conversations: Conversations, known: KnownConversations, turn: TurnContext, deliver?: string): Promise<{ target: JobTarget; profile: string }> {
  const conversation = await conversations.peek(turn.sessionKey);
  if (!conversation) throw new ScheduleError('invalid', 'this conversation is not known to the gateway yet; try again after the next message');
  const own = { target: { sessionKey: conversation.key, address: conversation.address, scope: conversation.scope }, profile: conversation.profile };
  if (deliver === undefined || deliver.trim() === '' || deliver.trim() === 'origin') return own;
  const target = await findTarget(known, deliver);
  if (target.sessionKey !== turn.sessionKey && !turn.admin) throw new ScheduleError('forbidden', 'only an admin may schedule a job for another conversation');
  return { target, profile: target.sessionKey === turn.sessionKey ? conversation.profile : await conversations.profileFor(target, turn.senderId) };
}

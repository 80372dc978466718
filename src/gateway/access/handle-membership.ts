/**
 * What the gateway does when the platform says the bot lost its place in a conversation: removed
 * from a group (or channel, or server), its scheduled jobs there are paused, since their answers
 * could no longer be delivered; blocked in a direct chat, its jobs there are paused until the
 * person unblocks the bot, when they resume. Nothing is said in the chat (the bot cannot speak
 * there any more): the log says what happened, with the jobs' ids.
 *
 * Only a platform's event about the bot itself makes a {@link MembershipChange} (Telegram's
 * `my_chat_member` for the bot, Slack's `channel_left` / `group_left` and `member_left_channel`
 * for the bot's user, Discord's `GUILD_DELETE` and `CHANNEL_DELETE`), which arrive only through the
 * adapter's authenticated link (the webhook's secret or signature, the bot's own socket). A
 * person's message never pauses anything.
 */
import { NotAcceptedError, type MembershipChange } from '../../channels/types.ts';
import { errorMessage } from '../../core/errors.ts';
import type { Job, Scheduler, SchedulerActor } from '../scheduler/index.ts';
import { isStoreFailure } from '../store-failure.ts';

/** What handling a membership change needs. */
export interface MembershipParts {
  scheduler: Pick<Scheduler, 'load' | 'list' | 'pause' | 'resume'>;
  log(line: string): void;
}

/** Who pauses a job when the bot was removed: shown as the job's `pausedReason` ("paused by …"). */
const removedActor: SchedulerActor = { id: 'platform', name: 'the platform: the bot was removed from the conversation', admin: true, fromJob: false };
/** Who pauses a job when a person blocked the bot; only jobs it paused resume on unblocking. */
const blockedActor: SchedulerActor = { id: 'platform', name: 'the platform: the person blocked the bot', admin: true, fromJob: false };

/**
 * Pauses (or, on unblocking, resumes) the scheduled jobs that deliver to the conversations of
 * `change`, and logs it. Rejects with {@link NotAcceptedError} when the store failed (the platform
 * may deliver it again: pausing a paused job changes nothing).
 */
export async function handleMembership(parts: MembershipParts, change: MembershipChange): Promise<void> {
  const places = new Set(change.conversationIds);
  const unblocking = change.kind === 'unblocked';
  const actor = change.kind === 'removed' ? removedActor : blockedActor;
  const done: Job[] = [];
  try {
    // The platform may tell before the scheduler has started: its jobs are read first.
    await parts.scheduler.load();
    const there = parts.scheduler.list().filter((job) => job.target.address.platform === change.platform && places.has(job.target.address.conversationId));
    const affected = unblocking ? there.filter((job) => job.state === 'paused' && job.pausedReason === `paused by ${blockedActor.name}`) : there.filter((job) => job.state === 'active');
    for (const job of affected) done.push(unblocking ? await parts.scheduler.resume(job.id, actor) : await parts.scheduler.pause(job.id, actor));
  } catch (error) {
    if (isStoreFailure(error)) throw new NotAcceptedError(`${change.label}: the bot's ${change.kind} not taken (store: ${errorMessage(error)})`);
    parts.log(`${change.label}: the bot's ${change.kind} not handled: ${errorMessage(error)}`);
    return;
  }
  const what = { removed: 'the bot was removed', blocked: 'the person blocked the bot', unblocked: 'the person unblocked the bot' }[change.kind];
  const ids = done.map((job) => job.id).join(', ');
  const jobs = done.length === 0 ? 'no scheduled job there' : `${done.length} scheduled job${done.length === 1 ? '' : 's'} there ${unblocking ? 'resumed' : 'paused'} (${ids})`;
  parts.log(`${change.label}: ${what}; ${jobs}`);
}

/**
 * How many live (active or paused) jobs each person and each conversation has, kept up to date as
 * jobs change, so checking the caps at `create` does not walk every job.
 */
import type { Job } from './job.ts';

/** Live jobs per creator id and per session key. */
export class JobCounts {
  private readonly byCreator = new Map<string, number>();
  private readonly byConversation = new Map<string, number>();

  /** Live jobs created by `creatorId`. */
  ofCreator(creatorId: string): number {
    return this.byCreator.get(creatorId) ?? 0;
  }

  /** Live jobs targeting `sessionKey`. */
  ofConversation(sessionKey: string): number {
    return this.byConversation.get(sessionKey) ?? 0;
  }

  /** Accounts for a job changing from `before` to `after` (either absent: created or removed). */
  update(before: Job | undefined, after: Job | undefined): void {
    if (before && before.state !== 'done') this.add(before, -1);
    if (after && after.state !== 'done') this.add(after, 1);
  }

  private add(job: Job, change: number): void {
    bump(this.byCreator, job.creator.id, change);
    bump(this.byConversation, job.target.sessionKey, change);
  }
}

function bump(counts: Map<string, number>, key: string, change: number): void {
  const count = (counts.get(key) ?? 0) + change;
  if (count > 0) counts.set(key, count);
  else counts.delete(key);
}

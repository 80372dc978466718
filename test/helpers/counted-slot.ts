/**
 * Runs work in a real session queue's task and counts how often its model calls step out of the
 * task's slot and back (see `src/core/task-slot.ts`): the slot is handed down by hand, so a test
 * shows each path that makes model calls hands it on.
 */
import { createSessionQueue } from '../../src/core/session-queue.ts';
import type { TaskSlot } from '../../src/core/task-slot.ts';

/** How often the slot was left, and how many of those steps out came back. */
export interface SlotCounts {
  leaves: number;
  backs: number;
}

/**
 * Runs `work` as the one task of a fresh queue (one slot), handing it the task's slot wrapped to
 * count; resolves to what `work` returned, the counts, and the queue's slots once it settled.
 */
export async function inQueuedTask<T>(work: (slot: TaskSlot) => Promise<T>): Promise<{ result: T; counts: SlotCounts; after: { running: number; away: number } }> {
  const queue = createSessionQueue({ maxRunning: 1 });
  const counts: SlotCounts = { leaves: 0, backs: 0 };
  const result = await queue.run('counted', (slot) =>
    work({
      leave() {
        counts.leaves++;
        const away = slot.leave();
        if (away === 'full') return away;
        let returned = false;
        return {
          // Called again once back (a caller's `finally`), it is the same way back: counted once.
          back() {
            if (!returned) counts.backs++;
            returned = true;
            return away.back();
          },
        };
      },
    }),
  );
  return { result, counts, after: { running: queue.running, away: queue.away } };
}

/**
 * A running task's slot in a session queue (see `session-queue.ts`), handed to the task and passed
 * down by hand to where it waits: a model call steps out of the slot while it waits on the
 * provider and back in before the task goes on, so turns waiting on a provider that hangs take no
 * slot an unrelated conversation needs. A call given no slot (a test's agent, the Workers build,
 * a reviewer's call after the turn) steps nowhere.
 *
 * Passed explicitly rather than found through `AsyncLocalStorage`: on Node 20 a storage that has
 * run once turns on promise hooks for every promise the process makes, which cost 1-1.6 ms of CPU
 * per chat turn (a tenth of it; `bench/RESULTS.md`, issue 33).
 */

/** The slot of a queued task. */
export interface TaskSlot {
  /**
   * Steps out of the slot for a wait on I/O: the slot goes to the next task waiting for one.
   * Returns the way back (call it once, before the task computes again), or `'full'` when as many
   * tasks as allowed are already out (the caller must not wait then: see `maxAway`).
   */
  leave(): SlotAbsence | 'full';
}

/** A step out of a task's slot. */
export interface SlotAbsence {
  /** Resolves once the task holds a running slot again (ahead of tasks not yet begun). */
  back(): Promise<void>;
}

/**
 * A running task's slot in a session queue (see `session-queue.ts`), reachable from deep inside
 * the task: a model call steps out of the slot while it waits on the provider and back in before
 * the task goes on, so turns waiting on a provider that hangs take no slot an unrelated
 * conversation needs. Code running outside any queued task finds no slot and steps nowhere.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** The slot of the queued task the caller runs in. */
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

const current = new AsyncLocalStorage<TaskSlot>();

/** Runs `task` with `slot` as the slot of everything it does (its awaits and callbacks included). */
export function runInTaskSlot<T>(slot: TaskSlot, task: () => Promise<T>): Promise<T> {
  return current.run(slot, task);
}

/**
 * Steps out of the slot of the queued task the caller runs in (see {@link TaskSlot.leave}):
 * `undefined` when it runs in none (a test's agent, the Workers build, a reviewer's call after
 * the turn), so there is nothing to step out of.
 *
 * @example
 * const away = leaveTaskSlot();
 * if (away === 'full') throw new Error('too many waiting');
 * try { await call(); } finally { await away?.back(); }
 */
export function leaveTaskSlot(): SlotAbsence | 'full' | undefined {
  return current.getStore()?.leave();
}

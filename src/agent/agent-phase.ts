/**
 * What an agent is doing now (idle, a turn, a compaction) and the queue slot it runs in: one thing
 * at a time, and those who wait for it to be idle again are told when it is.
 */
import { InternalError } from '../core/errors.ts';
import type { TaskSlot } from '../core/task-slot.ts';
import type { AgentPhase } from './agent-options.ts';

/** An agent's current phase, the slot of the queued task running it, and the waiters for its end. */
export class PhaseGate {
  #phase: AgentPhase = 'idle';
  #slot: TaskSlot | undefined;
  #idleWaiters: (() => void)[] = [];

  get phase(): AgentPhase {
    return this.#phase;
  }

  /** The slot the running phase was given, which its model calls step out of while they wait (see `core/task-slot.ts`). */
  get slot(): TaskSlot | undefined {
    return this.#slot;
  }

  /** Starts `phase` in `slot` (none: outside a queue); throws when another is running. */
  enter(phase: AgentPhase, slot?: TaskSlot): void {
    this.assertIdle();
    this.#phase = phase;
    this.#slot = slot;
  }

  /** Back to idle; everyone waiting is told. */
  leave(): void {
    this.#phase = 'idle';
    this.#slot = undefined;
    for (const resolve of this.#idleWaiters.splice(0)) resolve();
  }

  /** Throws when a phase is running. */
  assertIdle(): void {
    if (this.#phase !== 'idle') throw new InternalError(`The agent is busy (${this.#phase})`);
  }

  /** Resolves when the agent is idle. */
  waitForIdle(): Promise<void> {
    if (this.#phase === 'idle') return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }
}

/**
 * What an agent is doing now (idle, a turn, a compaction): one thing at a time, and those who wait
 * for it to be idle again are told when it is.
 */
import { InternalError } from '../core/errors.ts';
import type { AgentPhase } from './agent-options.ts';

/** An agent's current phase and the waiters for its end. */
export class PhaseGate {
  #phase: AgentPhase = 'idle';
  #idleWaiters: (() => void)[] = [];

  get phase(): AgentPhase {
    return this.#phase;
  }

  /** Starts `phase`; throws when another is running. */
  enter(phase: AgentPhase): void {
    this.assertIdle();
    this.#phase = phase;
  }

  /** Back to idle; everyone waiting is told. */
  leave(): void {
    this.#phase = 'idle';
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

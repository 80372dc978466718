/**
 * The agent's lifecycle state machine: seven states, eighteen valid transitions. Anything else
 * throws {@link InvalidTransitionError}, so a bug in the turn flow shows at once instead of leaving
 * an agent in a state nobody expects.
 */
import { AgentError } from '../core/errors.ts';

/** Lifecycle states. */
export type LifecycleState = 'IDLE' | 'INITIALIZING' | 'RUNNING' | 'PAUSED' | 'COMPLETING' | 'ERROR' | 'DISPOSED';

/** The eighteen valid transitions, `from -> to`. */
export const validTransitions: Readonly<Record<LifecycleState, readonly LifecycleState[]>> = {
  IDLE: ['INITIALIZING', 'DISPOSED'],
  INITIALIZING: ['RUNNING', 'ERROR', 'DISPOSED'],
  RUNNING: ['PAUSED', 'COMPLETING', 'ERROR', 'DISPOSED'],
  PAUSED: ['RUNNING', 'COMPLETING', 'ERROR', 'DISPOSED'],
  COMPLETING: ['IDLE', 'ERROR', 'DISPOSED'],
  ERROR: ['IDLE', 'DISPOSED'],
  DISPOSED: [],
};

/** A transition that the state machine does not allow. */
export class InvalidTransitionError extends AgentError {
  readonly from: LifecycleState;
  readonly to: LifecycleState;
  constructor(from: LifecycleState, to: LifecycleState) {
    super(`Invalid lifecycle transition ${from} -> ${to}`, { category: 'INTERNAL', retryable: false, details: { from, to } });
    this.from = from;
    this.to = to;
  }
}

/** Called after each transition. */
export type TransitionListener = (from: LifecycleState, to: LifecycleState, metadata?: Record<string, unknown>) => void;

/** How many transitions the history keeps (older ones are dropped so long-lived agents stay small). */
const historyLimit = 50;

/** Tracks and guards an agent's lifecycle state. */
export class LifecycleStateMachine {
  #state: LifecycleState = 'IDLE';
  #listeners: TransitionListener[] = [];
  #history: [LifecycleState, LifecycleState][] = [];

  get state(): LifecycleState {
    return this.#state;
  }

  /** The most recent transitions, oldest first. */
  get history(): readonly [LifecycleState, LifecycleState][] {
    return this.#history;
  }

  /** Whether `from -> to` is allowed. */
  static canTransition(from: LifecycleState, to: LifecycleState): boolean {
    return validTransitions[from].includes(to);
  }

  /** Moves to `to` or throws {@link InvalidTransitionError}. Listener errors are swallowed. */
  transition(to: LifecycleState, metadata?: Record<string, unknown>): void {
    const from = this.#state;
    if (!LifecycleStateMachine.canTransition(from, to)) throw new InvalidTransitionError(from, to);
    this.#state = to;
    this.#history.push([from, to]);
    if (this.#history.length > historyLimit) this.#history.shift();
    for (const listener of this.#listeners) {
      try {
        listener(from, to, metadata);
      } catch {
        // Listeners observe; they cannot veto or break a transition.
      }
    }
  }

  /** Registers a listener; returns a function that removes it. */
  onTransition(listener: TransitionListener): () => void {
    this.#listeners.push(listener);
    return () => {
      this.#listeners = this.#listeners.filter((l) => l !== listener);
    };
  }

  initialize(): void {
    this.transition('INITIALIZING');
  }
  start(): void {
    this.transition('RUNNING');
  }
  pause(): void {
    this.transition('PAUSED');
  }
  resume(): void {
    this.transition('RUNNING');
  }
  complete(): void {
    this.transition('COMPLETING');
  }
  finish(): void {
    this.transition('IDLE');
  }
  fail(error?: unknown): void {
    this.transition('ERROR', error === undefined ? undefined : { error });
  }
  /** Recovers from ERROR to IDLE. */
  recover(): void {
    this.transition('IDLE');
  }
  dispose(): void {
    if (this.#state !== 'DISPOSED') this.transition('DISPOSED');
  }
}

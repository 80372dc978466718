/** The listeners of an Agent's events: they observe, and a failing one cannot break a turn. */
import type { AgentEvent } from './agent-events.ts';
import type { EngineEvent } from './engine-events.ts';

/** Something told about every event. */
export type Listener = (event: AgentEvent) => void;

/** A set of listeners told about each event in the order they subscribed. */
export class Listeners {
  #listeners: Listener[] = [];

  /** Adds `listener`; returns the function that removes it. */
  subscribe(listener: Listener): () => void {
    this.#listeners.push(listener);
    return () => {
      this.#listeners = this.#listeners.filter((other) => other !== listener);
    };
  }

  /** Tells every listener; one that throws is skipped. */
  tell(event: AgentEvent | EngineEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event as AgentEvent);
      } catch {
        // Listeners observe; they cannot break a turn.
      }
    }
  }
}

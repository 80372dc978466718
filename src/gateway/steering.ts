/**
 * Steering (`busyMode: "steer"`): a message the person sends while their turn works is offered
 * to the running turn, which takes it in between tool rounds. Only a message the turn did take
 * in is answered by it; one offered too late (the turn was ending) keeps its own turn.
 */
import type { Agent } from '../agent/agent.ts';
import type { WaitingMessages, WaitingMessage } from './waiting-messages.ts';

/** The messages offered to, and taken in by, a conversation's running turn. */
export class Steering {
  #waiting: WaitingMessages;
  #offered: { key: string; text: string }[] = [];
  #taken: string[] = [];

  constructor(waiting: WaitingMessages) {
    this.#waiting = waiting;
  }

  /** Inbox keys of the messages the running turn took in (its reply answers them too). */
  get taken(): readonly string[] {
    return this.#taken;
  }

  /** A turn begins: nothing offered or taken yet. */
  begin(): void {
    this.#offered = [];
    this.#taken = [];
  }

  /** Offers a waiting message to `agent`'s running turn; it keeps its place until taken in. */
  offer(agent: Agent, item: WaitingMessage): void {
    this.#offered.push({ key: item.key, text: item.text });
    agent.steer(item.text);
  }

  /** Whether `key` was offered to the running turn (its text may be taken in at any moment). */
  isOffered(key: string): boolean {
    return this.#offered.some((offered) => offered.key === key);
  }

  /** The running turn took in `text` (the agent's `steering_injected`): its message is answered by the turn. */
  injected(text: string): void {
    const index = this.#offered.findIndex((offered) => offered.text === text);
    if (index < 0) return;
    const [offered] = this.#offered.splice(index, 1);
    if (this.#waiting.remove(offered!.key)) this.#taken.push(offered!.key);
  }

  /** The turn ended: what it did not take in keeps its own turn. */
  end(): void {
    this.#offered = [];
  }
}

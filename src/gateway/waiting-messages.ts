/**
 * The messages of one conversation that are accepted and wait for a turn, in the order they came.
 * Each has a turn queued behind the running one; a turn takes its own message and, with it, the
 * text-only messages of the same person right behind it (they are answered together, as one
 * follow-up), or a message is taken into the running turn as steering. A queued turn whose
 * message was already taken that way has nothing left to do.
 */
import type { InboundMessage } from '../channels/types.ts';
import type { InboxEntry } from './inbox.ts';

/** A message accepted for a turn and not yet taken by one. */
export interface WaitingMessage {
  /** Its inbox key. */
  key: string;
  message: InboundMessage;
  /** What the model is given for it (in groups: labelled, after what was overheard). */
  text: string;
  /** Its inbox entry, when it is answered after a restart (or after the store recovered). */
  entry?: InboxEntry;
}

/** A conversation's waiting messages. */
export class WaitingMessages {
  #items: WaitingMessage[] = [];

  /** Number of messages waiting. */
  get size(): number {
    return this.#items.length;
  }

  /** Adds a message behind the others. */
  add(item: WaitingMessage): void {
    this.#items.push(item);
  }

  /** Whether `key` still waits. */
  has(key: string): boolean {
    return this.#items.some((item) => item.key === key);
  }

  /** Takes `key` out (it was taken into a running turn as steering); false when it no longer waits. */
  remove(key: string): boolean {
    const index = this.#items.findIndex((item) => item.key === key);
    if (index < 0) return false;
    this.#items.splice(index, 1);
    return true;
  }

  /**
   * Takes the messages the turn of `key` answers: `key` itself and, when `batch`, the text-only
   * messages of the same sender right behind it. A message whose turn began before a restart
   * takes exactly the messages that turn began with (those still waiting). Undefined when `key`
   * no longer waits (an earlier turn answered it).
   */
  take(key: string, batch: boolean): WaitingMessage[] | undefined {
    const index = this.#items.findIndex((item) => item.key === key);
    if (index < 0) return undefined;
    const first = this.#items[index]!;
    const begun = first.entry?.begun;
    let end = index + 1;
    if (begun) {
      const together = new Set(begun.keys);
      while (end < this.#items.length && together.has(this.#items[end]!.key)) end++;
    } else if (batch && first.message.attachments.length === 0) {
      while (end < this.#items.length && joins(first, this.#items[end]!)) end++;
    }
    return this.#items.splice(index, end - index);
  }

  /** Takes every waiting message (the conversation is dropped). */
  clear(): WaitingMessage[] {
    return this.#items.splice(0);
  }
}

/** Whether `next` is answered together with `first`: same person, text only, not begun on its own. */
function joins(first: WaitingMessage, next: WaitingMessage): boolean {
  return next.message.sender.id === first.message.sender.id && next.message.attachments.length === 0 && next.entry?.begun === undefined;
}

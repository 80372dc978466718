/**
 * The messages of one conversation that are accepted and wait for a turn, in the order they were
 * sent (the platform's time and message id: a webhook retried after a restart may bring an earlier
 * message after a later one). Each message has a turn queued behind the running one; a turn takes
 * the first waiting message and, with it, the text-only messages of the same person right behind it
 * (they are answered together, as one follow-up), or a message is taken into the running turn as
 * steering. A queued turn that finds nothing waiting has nothing left to do.
 *
 * An album (messages a person sent as one, such as Telegram's several photos) is answered in one
 * turn: a turn that would begin with an album's first message waits until no more of it has come
 * for {@link albumQuietMs} (the platform sends the parts within moments of each other), at most
 * {@link albumMaxWaitMs}, then takes every part.
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

/** How long an album is waited for after its latest part came, before its turn begins. */
export const albumQuietMs = 600;
/** The longest an album's turn waits for more parts, from the first. */
export const albumMaxWaitMs = 3_000;

/** A conversation's waiting messages. */
export class WaitingMessages {
  #items: WaitingMessage[] = [];
  /** Called when a message is added (an album's turn waits on it). */
  #added = new Set<() => void>();

  /** Number of messages waiting. */
  get size(): number {
    return this.#items.length;
  }

  /** Adds a message in the order of sending: behind the others, unless it was sent before some of them. */
  add(item: WaitingMessage): void {
    let index = this.#items.length;
    while (index > 0 && sentBefore(item.message, this.#items[index - 1]!.message)) index--;
    this.#items.splice(index, 0, item);
    for (const listener of [...this.#added]) listener();
  }

  /** Whether `key` still waits. */
  has(key: string): boolean {
    return this.#items.some((item) => item.key === key);
  }

  /** The first waiting message `match` accepts. */
  find(match: (item: WaitingMessage) => boolean): WaitingMessage | undefined {
    return this.#items.find(match);
  }

  /** Puts `item` in the place of the waiting message `key` (an edit of it); false when that no longer waits. */
  replace(key: string, item: WaitingMessage): boolean {
    const index = this.#items.findIndex((waiting) => waiting.key === key);
    if (index < 0) return false;
    this.#items[index] = item;
    return true;
  }

  /** Takes `key` out (it was taken into a running turn as steering); false when it no longer waits. */
  remove(key: string): boolean {
    const index = this.#items.findIndex((item) => item.key === key);
    if (index < 0) return false;
    this.#items.splice(index, 1);
    return true;
  }

  /**
   * Takes the messages the next turn answers: the first waiting one and, when `batch`, the
   * text-only messages of the same sender right behind it. A message whose turn began before a
   * restart takes exactly the messages that turn began with (those still waiting). Undefined when
   * nothing waits (earlier turns answered it all).
   */
  takeNext(batch: boolean): WaitingMessage[] | undefined {
    const first = this.#items[0];
    if (!first) return undefined;
    const begun = first.entry?.begun;
    const album = first.message.albumId;
    let end = 1;
    if (begun) {
      const together = new Set(begun.keys);
      while (end < this.#items.length && together.has(this.#items[end]!.key)) end++;
    } else if (album !== undefined) {
      while (end < this.#items.length && this.#items[end]!.message.albumId === album && this.#items[end]!.message.sender.id === first.message.sender.id) end++;
    } else if (batch && first.message.attachments.length === 0) {
      while (end < this.#items.length && joins(first, this.#items[end]!)) end++;
    }
    return this.#items.splice(0, end);
  }

  /**
   * {@link takeNext}, once the album the first waiting message belongs to (if any, and not begun
   * before a restart) has stopped growing: {@link albumQuietMs} without a new message, at most
   * {@link albumMaxWaitMs}.
   */
  async takeNextWhole(batch: boolean): Promise<WaitingMessage[] | undefined> {
    const first = this.#items[0];
    if (first?.message.albumId !== undefined && first.entry?.begun === undefined) await this.#quiet(albumQuietMs, albumMaxWaitMs);
    return this.takeNext(batch);
  }

  /** Resolves once no message was added for `quietMs`, or after `maxMs` in all. */
  #quiet(quietMs: number, maxMs: number): Promise<void> {
    return new Promise((resolve) => {
      let quiet: NodeJS.Timeout;
      const done = () => {
        clearTimeout(quiet);
        clearTimeout(longest);
        this.#added.delete(restart);
        resolve();
      };
      const restart = () => {
        clearTimeout(quiet);
        quiet = setTimeout(done, quietMs);
      };
      const longest = setTimeout(done, maxMs);
      this.#added.add(restart);
      restart();
    });
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

/**
 * Whether `a` was sent before `b`, by the platform's send time, then its message id (Telegram's
 * and Discord's ids grow, Slack's are timestamps); false when it cannot tell, so arrival order stands.
 */
function sentBefore(a: InboundMessage, b: InboundMessage): boolean {
  const at = a.sentAt ?? a.receivedAt;
  const bt = b.sentAt ?? b.receivedAt;
  if (at !== bt) return at < bt;
  return /^\d+(\.\d+)?$/.test(a.id) && /^\d+(\.\d+)?$/.test(b.id) && compareNumeric(a.id, b.id) < 0;
}

/** Compares two non-negative decimal numbers written as text, of any length. */
function compareNumeric(a: string, b: string): number {
  const [ai = '', af = ''] = a.split('.');
  const [bi = '', bf = ''] = b.split('.');
  if (ai.length !== bi.length) return ai.length - bi.length;
  if (ai !== bi) return ai < bi ? -1 : 1;
  return af === bf ? 0 : af.padEnd(bf.length, '0') < bf.padEnd(af.length, '0') ? -1 : 1;
}

/** The messages of `batch` that `waits` says still wait (in the inbox), or undefined when none does. */
export async function stillWaiting(batch: WaitingMessage[] | undefined, waits: (key: string) => Promise<boolean>): Promise<WaitingMessage[] | undefined> {
  if (!batch) return undefined;
  const waiting = [];
  for (const item of batch) if (await waits(item.key)) waiting.push(item);
  return waiting.length > 0 ? waiting : undefined;
}

/**
 * Taking a message in: a message is accepted once it is in the inbox, and only then does its
 * platform hear so (the webhook's 200, the poll offset moving on). The inbox entry is written
 * before the message is marked seen, so a crash between the two leaves a message that is answered
 * after the restart and whose redelivery is recognised (the gateway marks every waiting entry seen
 * again at start-up); never one marked seen that nobody kept.
 */
import { NotAcceptedError, type InboundMessage } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';
import type { Dedupe } from './dedupe.ts';
import type { Inbox } from './inbox.ts';

/** What acceptance works with. */
export interface AcceptanceOptions {
  inbox: Inbox;
  dedupe: Dedupe;
  /** A store write failed (reported to the store's health). */
  storeFailed(error: unknown, what: string): void;
}

/** Records messages as accepted, once each. */
export class Acceptance {
  readonly #options: AcceptanceOptions;
  /** Deliveries being accepted right now, by dedupe key (a second delivery waits for the first). */
  readonly #accepting = new Map<string, Promise<boolean>>();

  constructor(options: AcceptanceOptions) {
    this.#options = options;
  }

  /**
   * Records `message` as accepted: false for a delivery seen before. Throws
   * {@link NotAcceptedError} when the store cannot record it (the platform delivers it again).
   */
  async accept(message: InboundMessage): Promise<boolean> {
    const key = message.dedupeKey;
    // Two deliveries of one update at once (a webhook retry while the first is being taken): the
    // second is a duplicate if the first is taken, and refused like it if it is not.
    const inFlight = this.#accepting.get(key);
    if (inFlight) return inFlight.then(() => false);
    const accepting = this.#record(message);
    this.#accepting.set(key, accepting);
    try {
      return await accepting;
    } finally {
      this.#accepting.delete(key);
    }
  }

  /** {@link accept} for the first delivery of `message` at a time. */
  async #record(message: InboundMessage): Promise<boolean> {
    const { inbox, dedupe, storeFailed } = this.#options;
    const key = message.dedupeKey;
    try {
      // Waiting in the inbox counts first: a damaged dedupe memory must not refuse a message kept there.
      if ((await inbox.has(key)) || (await dedupe.seen(key, message.sentAt))) return false;
      await inbox.add(message, message.text);
    } catch (error) {
      storeFailed(error, `${message.sessionKey}: message not taken`);
      throw new NotAcceptedError(`message not taken (store: ${errorMessage(error)})`);
    }
    await dedupe.firstTime(key).catch((error: unknown) => storeFailed(error, `${message.sessionKey}: message not marked seen`));
    return true;
  }
}

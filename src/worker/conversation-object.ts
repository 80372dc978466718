/**
 * One conversation on Workers: a Durable Object, the single owner of its state, in its own
 * transactional storage through the project's one `Store`. It takes a platform's message on
 * record (inbox and dedupe, as on Node) before the webhook is answered, then answers from an
 * alarm: stored alarms outlive the object, so a turn cut off when the object is evicted or
 * restarted runs again from where it began, and its reply (once on record in the delivery
 * ledger) is sent once.
 */
import { DurableObject } from 'cloudflare:workers';
import { createStorage } from 'unstorage';
import { Acceptance } from '../gateway/acceptance.ts';
import { createDedupe } from '../gateway/dedupe.ts';
import { createInbox } from '../gateway/inbox.ts';
import { createDeliveryLedger } from '../gateway/ledger/index.ts';
import type { Store } from '../store/store.ts';
import { createStore } from '../store/unstorage-store.ts';
import { durableObjectDriver } from './durable-object-driver.ts';
import { fromWireMessage, type WireMessage } from './wire-message.ts';
import type { WorkerEnv } from './worker-env.ts';

/** The gateway's parts one conversation keeps, over its object's storage. */
export interface ConversationParts {
  store: Store;
  inbox: ReturnType<typeof createInbox>;
  dedupe: ReturnType<typeof createDedupe>;
  acceptance: Acceptance;
  ledger: ReturnType<typeof createDeliveryLedger>;
}

/** The Durable Object class of one conversation. */
export class ConversationObject extends DurableObject<WorkerEnv> {
  #parts: ConversationParts | undefined;

  /** This conversation's parts, made on first use over the object's storage. */
  protected get parts(): ConversationParts {
    if (!this.#parts) {
      const store = createStore({ storage: createStorage({ driver: durableObjectDriver(this.ctx.storage) }) });
      const storeFailed = (error: unknown, what: string) => console.error(`${what}: ${String(error)}`);
      const inbox = createInbox(store);
      const dedupe = createDedupe(store);
      this.#parts = { store, inbox, dedupe, acceptance: new Acceptance({ inbox, dedupe, storeFailed }), ledger: createDeliveryLedger(store) };
    }
    return this.#parts;
  }

  /**
   * Takes `message` on record unless it was seen (a redelivery); resolves to whether it was new.
   * Resolving means it is kept: the webhook may answer 200. A new message wakes the object.
   */
  async accept(message: WireMessage): Promise<boolean> {
    const parts = this.parts;
    const inbound = fromWireMessage(message);
    const accepted = await parts.acceptance.accept(inbound);
    if (accepted) {
      if (message.interaction) await this.ctx.storage.put(`interaction:${message.dedupeKey}`, message.interaction);
      await this.#wake();
    }
    return accepted;
  }

  /** The messages waiting for an answer, oldest first. */
  async waiting(): Promise<{ key: string; text: string; sessionKey: string }[]> {
    return (await this.parts.inbox.pending()).map((entry) => ({ key: entry.dedupeKey, text: entry.text, sessionKey: entry.sessionKey }));
  }

  /** Runs now what is due: waiting messages. */
  override async alarm(): Promise<void> {
    // The turn lands in the next commit; until then messages wait on record.
  }

  /** Sets the alarm to now unless one is due sooner. */
  async #wake(): Promise<void> {
    const now = Date.now();
    const current = await this.ctx.storage.getAlarm();
    if (current === null || current > now) await this.ctx.storage.setAlarm(now);
  }
}

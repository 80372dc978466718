/**
 * One conversation on Workers: a Durable Object, the single owner of its state. It takes a
 * platform's message on record (deduplicated by the message's key) before the webhook is
 * answered, in its own transactional storage.
 */
import { DurableObject } from 'cloudflare:workers';

/** A message as the object keeps it until it is answered. */
export interface KeptMessage {
  key: string;
  sessionKey: string;
  text: string;
  receivedAt: number;
}

/** The Durable Object class of one conversation. */
export class ConversationObject extends DurableObject {
  /** Records `message` unless its key was seen; resolves to whether it was new. */
  async accept(message: KeptMessage): Promise<boolean> {
    const seen = `seen:${message.key}`;
    if ((await this.ctx.storage.get(seen)) !== undefined) return false;
    await this.ctx.storage.put({ [seen]: message.receivedAt, [`inbox:${message.receivedAt}:${message.key}`]: message });
    return true;
  }

  /** The messages waiting, oldest first. */
  async waiting(): Promise<KeptMessage[]> {
    return [...(await this.ctx.storage.list<KeptMessage>({ prefix: 'inbox:' })).values()];
  }
}

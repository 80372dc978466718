/**
 * Durability before anything reaches a chat. A conversation's object writes without holding its
 * outgoing calls (`unconfirmed` in `durable-object-driver.ts`), so that a turn's model request
 * leaves at once: it needs nothing confirmed (a turn cut off runs again from where it began). In
 * production a write is confirmed by replication, which the model request no longer waits for;
 * locally the commit is an `fsync` on the object's own thread, so there it saves nothing
 * (measured). What a person can see is another matter: the delivery ledger's record of a reply
 * must be durable before the reply is sent, or an object restarted in between would send it
 * twice. So every call of a chat adapter first waits for the object's writes so far
 * (`storage.sync()`), as the webhook's answer does in the object's `accept`.
 */
import type { ChannelAdapter } from '../channels/types.ts';

/** The calls of an adapter that reach a chat (and so must come after the writes before them). */
const outward: ReadonlySet<PropertyKey> = new Set(['send', 'edit', 'typing', 'stopTyping', 'answerAction'] satisfies (keyof ChannelAdapter)[]);

/** `adapter`, each of whose outward calls first waits until `storage`'s writes so far are durable. */
export function durableFirst(adapter: ChannelAdapter, storage: Pick<DurableObjectStorage, 'sync'>): ChannelAdapter {
  return new Proxy(adapter, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name, target);
      if (typeof value !== 'function') return value;
      const call = value as (...args: unknown[]) => unknown;
      if (!outward.has(name)) return call.bind(target);
      return async (...args: unknown[]) => {
        await storage.sync();
        return call.apply(target, args);
      };
    },
  });
}

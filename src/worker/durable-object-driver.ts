/**
 * An unstorage driver over a Durable Object's own storage, so the project's one `Store`
 * (`src/store/unstorage-store.ts`) keeps a conversation's state in its object: transactional,
 * single-writer, local to the object. Values are kept as unstorage gives them (strings).
 */
import { defineDriver } from 'unstorage';

/**
 * How the driver writes. By default the platform holds the object's outgoing messages (its
 * answers, its `fetch` calls) until its writes are confirmed durable. `unconfirmed` writes do not
 * hold them: the object then waits itself where durability must come first (`storage.sync()`,
 * see `durable-first.ts`), and a call that needs none, a turn's model request, leaves at once.
 */
export interface DurableObjectDriverOptions {
  /** The object's `ctx.storage`. */
  storage: DurableObjectStorage;
  unconfirmed?: boolean;
}

/** The driver over an object's storage. */
export const durableObjectDriver = defineDriver((options: DurableObjectDriverOptions) => {
  const { storage } = options;
  const writing = { allowUnconfirmed: options.unconfirmed === true };
  return {
    name: 'durable-object',
    options,
    async hasItem(key: string) {
      return (await storage.get(key)) !== undefined;
    },
    async getItem(key: string) {
      return (await storage.get<string>(key)) ?? null;
    },
    async setItem(key: string, value: string) {
      await storage.put(key, value, writing);
    },
    // One call, written atomically (a log's counter and its record, say).
    async setItems(items: { key: string; value: string }[]) {
      await storage.put(Object.fromEntries(items.map((item) => [item.key, item.value])), writing);
    },
    async removeItem(key: string) {
      await storage.delete(key, writing);
    },
    async getKeys(base: string) {
      return [...(await storage.list({ prefix: base })).keys()];
    },
    async clear(base: string) {
      const keys = [...(await storage.list({ prefix: base })).keys()];
      // Durable Object storage deletes at most 128 keys per call.
      for (let index = 0; index < keys.length; index += 128) await storage.delete(keys.slice(index, index + 128), writing);
    },
  };
});

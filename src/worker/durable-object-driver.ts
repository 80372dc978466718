/**
 * An unstorage driver over a Durable Object's own storage, so the project's one `Store`
 * (`src/store/unstorage-store.ts`) keeps a conversation's state in its object: transactional,
 * single-writer, local to the object. Values are kept as unstorage gives them (strings).
 */
import { defineDriver } from 'unstorage';

/** The driver for `storage` (a Durable Object's `ctx.storage`). */
export const durableObjectDriver = defineDriver((storage: DurableObjectStorage) => ({
  name: 'durable-object',
  options: storage,
  async hasItem(key: string) {
    return (await storage.get(key)) !== undefined;
  },
  async getItem(key: string) {
    return (await storage.get<string>(key)) ?? null;
  },
  async setItem(key: string, value: string) {
    await storage.put(key, value);
  },
  // One call, written atomically (a log's counter and its record, say).
  async setItems(items: { key: string; value: string }[]) {
    await storage.put(Object.fromEntries(items.map((item) => [item.key, item.value])));
  },
  async removeItem(key: string) {
    await storage.delete(key);
  },
  async getKeys(base: string) {
    return [...(await storage.list({ prefix: base })).keys()];
  },
  async clear(base: string) {
    const keys = [...(await storage.list({ prefix: base })).keys()];
    // Durable Object storage deletes at most 128 keys per call.
    for (let index = 0; index < keys.length; index += 128) await storage.delete(keys.slice(index, index + 128));
  },
}));

/**
 * The memory an adapter keeps across restarts ({@link ChannelMemory}), over the gateway's store:
 * each platform's keys under `channel-memory:<platform>:`. Adapters get only this, never the store
 * (they import no gateway code). The wiring makes the adapters before the store is open (bad
 * credentials stop the start first), so the store is looked up when the memory is first used,
 * which is from the adapter's start on.
 */
import type { ChannelMemory } from '../channels/types.ts';
import type { Store } from '../store/store.ts';
import { keySegment } from './dedupe.ts';

/** `platform`'s memory in the store `store()` gives (undefined until it is open: a use before then fails). */
export function channelMemory(store: () => Pick<Store, 'get' | 'set' | 'delete'> | undefined, platform: string): ChannelMemory {
  const keyOf = (key: string) => `channel-memory:${keySegment(platform)}:${keySegment(key)}`;
  const open = () => {
    const opened = store();
    if (!opened) throw new Error(`${platform}: the store is not open yet`);
    return opened;
  };
  return {
    async get(key) {
      const value = await open().get<unknown>(keyOf(key));
      return typeof value === 'string' ? value : undefined;
    },
    async set(key, value, options) {
      await open().set(keyOf(key), value, options);
    },
    async delete(key) {
      await open().delete(keyOf(key));
    },
  };
}

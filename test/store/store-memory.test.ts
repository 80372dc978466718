import { describe, expect, it } from 'vitest';
import { createStorage, type Storage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import { createStore } from '../../src/store/unstorage-store.ts';
import { describeStoreContract } from './store-contract.ts';

describeStoreContract('memory', ({ now }) => createStore({ driver: 'memory', now }));

describeStoreContract('injected storage', ({ now }) => createStore({ storage: createStorage({ driver: memoryDriver() }), now }));

/** A storage that counts the calls, and the record bytes written, going through it. */
function countingStorage(): { storage: Storage; calls: Record<string, number>; bytesWritten: { total: number } } {
  const storage = createStorage({ driver: memoryDriver() });
  const calls: Record<string, number> = {};
  const bytesWritten = { total: 0 };
  const counted = new Proxy(storage, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        calls[String(property)] = (calls[String(property)] ?? 0) + 1;
        // The record itself; the counter next to it is a number of a few digits.
        if (property === 'setItem' && !String(args[0]).endsWith(':next')) bytesWritten.total += JSON.stringify(args[1]).length;
        return (value as (...a: unknown[]) => unknown).apply(target, args);
      };
    },
  });
  return { storage: counted, calls, bytesWritten };
}

describe('keyed logs', () => {
  it('cost the same storage calls and bytes at record 10 and at record 2,000', async () => {
    const { storage, calls, bytesWritten } = countingStorage();
    const store = createStore({ storage });
    const costs: { calls: Record<string, number>; bytes: number }[] = [];
    for (let index = 0; index < 2_000; index++) {
      for (const key of Object.keys(calls)) delete calls[key];
      bytesWritten.total = 0;
      await store.append('sessions:long', `{"record":${String(index).padStart(5, '0')}}`);
      if (index === 10 || index === 1_999) costs.push({ calls: { ...calls }, bytes: bytesWritten.total });
    }
    expect(costs[0]).toEqual(costs[1]);
    // getMount: whether the backend writes several keys in one call (the memory driver does not).
    expect(costs[0]!.calls).toEqual({ getItem: 1, getMount: 1, setItem: 2 });
    expect(await store.readLog('sessions:long')).toHaveLength(2_000);
  });

  it('store one key per record and read them back in numeric order', async () => {
    const storage = createStorage({ driver: memoryDriver() });
    const store = createStore({ storage });
    for (let index = 0; index < 12; index++) await store.append('log:k', `r${index}`);
    const keys = await storage.getKeys('log:k');
    expect(keys).toContain('log:k:000000000000');
    expect(keys).toContain('log:k:000000000011');
    expect(await store.readLog('log:k')).toEqual(Array.from({ length: 12 }, (_, index) => `r${index}`));
  });
});

import { describe, expect, it } from 'vitest';
import { createStorage, type Storage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import { createStore } from '../../src/store/unstorage-store.ts';
import { describeStoreContract } from './store-contract.ts';

describeStoreContract('memory', ({ now }) => createStore({ driver: 'memory', now }));

describeStoreContract('injected storage', ({ now }) => createStore({ storage: createStorage({ driver: memoryDriver() }), now }));

describeStoreContract('injected storage, single writer', ({ now }) => createStore({ storage: createStorage({ driver: memoryDriver() }), singleWriter: true, now }));

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

  it("read a log's counter once when the store is its storage's only writer", async () => {
    const { storage, calls } = countingStorage();
    const store = createStore({ storage, singleWriter: true });
    await store.append('sessions:one', 'r0');
    for (const key of Object.keys(calls)) delete calls[key];
    await store.append('sessions:one', 'r1');
    expect(calls).toEqual({ getMount: 1, setItem: 2 });
    expect(await store.readLog('sessions:one')).toEqual(['r0', 'r1']);
  });

  it('as single writer, read the counter again after a failed append, a deleted log or a moved one', async () => {
    const storage = createStorage({ driver: memoryDriver() });
    let failNext = false;
    const failing = new Proxy(storage, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (property !== 'setItem' || typeof value !== 'function') return value;
        return async (...args: unknown[]) => {
          // The counter is written, then the record fails: the log has a gap there.
          if (failNext && !String(args[0]).endsWith(':next')) {
            failNext = false;
            throw Object.assign(new Error('disk full'), { code: 'ENOSPC' });
          }
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const store = createStore({ storage: failing, singleWriter: true });
    await store.append('log:a', 'r0');
    failNext = true;
    await expect(store.append('log:a', 'lost')).rejects.toThrow();
    await store.append('log:a', 'r1');
    expect(await store.readLog('log:a')).toEqual(['r0', 'r1']);
    expect(await storage.getKeys('log:a')).toContain('log:a:000000000002');

    await store.deleteLog('log:a');
    await store.append('log:a', 'fresh');
    expect(await storage.getKeys('log:a')).toContain('log:a:000000000000');
    await store.append('log:b', 'b0');
    await store.moveLog('log:b', 'log:a');
    await store.append('log:a', 'b1');
    await store.append('log:b', 'new b');
    expect(await store.readLog('log:a')).toEqual(['b0', 'b1']);
    expect(await store.readLog('log:b')).toEqual(['new b']);
  });

  it("read and delete a log from its counter, never listing the storage's keys (a walk of every key there is)", async () => {
    const { storage, calls } = countingStorage();
    const store = createStore({ storage });
    for (let index = 0; index < 300; index++) await store.set(`other:${index}`, index);
    for (let index = 0; index < 3; index++) await store.append('sessions:s1', `r${index}`);
    for (const key of Object.keys(calls)) delete calls[key];
    expect(await store.readLog('sessions:s1')).toEqual(['r0', 'r1', 'r2']);
    expect(calls).toEqual({ getItem: 1, getItems: 1 });
    for (const key of Object.keys(calls)) delete calls[key];
    await store.deleteLog('sessions:s1');
    expect(calls.getKeys).toBeUndefined();
    expect(await storage.getKeys('sessions')).toEqual([]);
    expect(await store.readLog('sessions:s1')).toEqual([]);
    expect(await store.get('other:299')).toBe(299);
  });

  it('skip a gap below the counter; take records with no counter for a delete cut short, and list those of a damaged one', async () => {
    const storage = createStorage({ driver: memoryDriver() });
    const store = createStore({ storage });
    for (let index = 0; index < 3; index++) await store.append('log:gap', `r${index}`);
    await storage.removeItem('log:gap:000000000001');
    expect(await store.readLog('log:gap')).toEqual(['r0', 'r2']);
    // Records with no counter: a delete cut short was removing them; a new log counts from 0 over them.
    await storage.setItem('log:orphan:000000000000', { v: 'o0' });
    await storage.setItem('log:orphan:000000000001', { v: 'o1' });
    expect(await store.readLog('log:orphan')).toEqual([]);
    await store.append('log:orphan', 'n0');
    expect(await store.readLog('log:orphan')).toEqual(['n0']);
    // A damaged counter: the records are listed.
    await storage.setItem('log:orphan:next', { v: 'two' });
    expect(await store.readLog('log:orphan')).toEqual(['n0', 'o1']);
    await storage.setItem('log:orphan:000000000000', { v: 'o0' });
    expect(await store.readLog('log:orphan')).toEqual(['o0', 'o1']);
    await storage.setItem('log:orphan:next', { v: 1e15 });
    expect(await store.readLog('log:orphan')).toEqual(['o0', 'o1']);
    await store.deleteLog('log:orphan');
    expect(await storage.getKeys('log:orphan')).toEqual([]);
    // Nor does reading a log that never was list anything.
    const { storage: counted, calls } = countingStorage();
    expect(await createStore({ storage: counted }).readLog('sessions:none')).toEqual([]);
    expect(calls).toEqual({ getItem: 1 });
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

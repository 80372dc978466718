/**
 * The behaviour every {@link Store} must have, run against each backend:
 * `describeStoreContract('fs', (options) => createStore({ driver: 'fs', base, ...options }))`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../../src/store/store.ts';

/** Builds a fresh, empty store using the given clock. */
export type StoreFactory = (options: { now: () => number }) => Store | Promise<Store>;

/**
 * Runs a piece of a test (making the store, a test's body, closing it) where the backend can be
 * used: a Durable Object's storage only inside its object, say. Default: in place.
 */
export type StoreScope = <T>(body: () => Promise<T>) => Promise<T>;

/** Registers the contract tests for one backend. */
export function describeStoreContract(name: string, factory: StoreFactory, scope: StoreScope = (body) => body()): void {
  /** A contract test whose body runs in `scope`. */
  const test = (title: string, body: () => Promise<void>) => it(title, () => scope(body));
  describe(`Store contract: ${name}`, () => {
    let clock = 1_700_000_000_000;
    let store: Store;

    beforeEach(async () => {
      clock = 1_700_000_000_000;
      store = await scope(async () => factory({ now: () => clock }));
    });
    afterEach(async () => {
      await scope(() => store.close());
    });

    describe('values', () => {
      test('returns null for a missing key', async () => {
        expect(await store.get('missing')).toBeNull();
      });

      test('round-trips JSON values and overwrites', async () => {
        const values = [{ a: 1, nested: { list: [1, 'two', null] } }, 'text', '{"looks":"like json"}', 42, 0, true, false, [1, 2]];
        for (const [index, value] of values.entries()) {
          await store.set(`values:${index}`, value);
          expect(await store.get(`values:${index}`)).toEqual(value);
        }
        await store.set('values:0', { replaced: true });
        expect(await store.get('values:0')).toEqual({ replaced: true });
      });

      test('deletes, and deleting a missing key is fine', async () => {
        await store.set('gone:1', 'x');
        await store.delete('gone:1');
        expect(await store.get('gone:1')).toBeNull();
        await expect(store.delete('gone:never')).resolves.toBeUndefined();
      });

      test('keeps keys apart', async () => {
        await store.set('apart:a', 1);
        await store.set('apart:ab', 2);
        await store.set('apart:a2:b', 3);
        expect(await store.get('apart:a')).toBe(1);
        expect(await store.get('apart:ab')).toBe(2);
        expect(await store.get('apart:a2:b')).toBe(3);
      });

      test('refuses invalid keys', async () => {
        for (const key of ['', 'a/b', 'a:..:b', '..', 'a::b', ':a', 'a:', 'a\\b', 'a?b', 'a$']) {
          await expect(store.set(key, 1), key).rejects.toThrow(TypeError);
          await expect(store.get(key), key).rejects.toThrow(TypeError);
        }
      });
    });

    describe('list', () => {
      beforeEach(() =>
        scope(async () => {
          for (const key of ['list:a:1', 'list:a:2', 'list:a:deep:3', 'list:ab:1', 'list:b:1']) await store.set(key, key);
        }),
      );

      test('lists keys under a segment prefix, sorted', async () => {
        expect(await store.list('list:a:')).toEqual(['list:a:1', 'list:a:2', 'list:a:deep:3']);
      });

      test('matches prefixes that end inside a segment', async () => {
        expect(await store.list('list:a')).toEqual(['list:a:1', 'list:a:2', 'list:a:deep:3', 'list:ab:1']);
        expect(await store.list('list:a:d')).toEqual(['list:a:deep:3']);
      });

      test('lists everything for an empty prefix and nothing for an unknown one', async () => {
        expect(await store.list('')).toEqual(expect.arrayContaining(['list:a:1', 'list:b:1']));
        expect(await store.list('nothing:')).toEqual([]);
      });

      test('drops deleted keys', async () => {
        await store.delete('list:a:2');
        expect(await store.list('list:a:')).toEqual(['list:a:1', 'list:a:deep:3']);
      });
    });

    describe('TTL', () => {
      test('expires a value after ttlSeconds on the injected clock', async () => {
        await store.set('ttl:a', 'soon gone', { ttlSeconds: 10 });
        await store.set('ttl:b', 'stays');
        clock += 9_999;
        expect(await store.get('ttl:a')).toBe('soon gone');
        clock += 1;
        expect(await store.get('ttl:a')).toBeNull();
        clock += 365 * 24 * 3600 * 1000;
        expect(await store.get('ttl:b')).toBe('stays');
      });

      test('deletes an expired value once it has been read', async () => {
        await store.set('ttl:lazy', 1, { ttlSeconds: 1 });
        clock += 1_000;
        expect(await store.get('ttl:lazy')).toBeNull();
        expect(await store.list('ttl:')).toEqual([]);
      });

      test('lets a set replace the TTL', async () => {
        await store.set('ttl:c', 1, { ttlSeconds: 1 });
        await store.set('ttl:c', 2);
        clock += 5_000;
        expect(await store.get('ttl:c')).toBe(2);
      });

      test('refuses a non-positive TTL', async () => {
        await expect(store.set('ttl:d', 1, { ttlSeconds: 0 })).rejects.toThrow(RangeError);
        await expect(store.set('ttl:d', 1, { ttlSeconds: Number.NaN })).rejects.toThrow(RangeError);
      });
    });

    describe('setIfAbsent', () => {
      test('stores only when nothing is there', async () => {
        expect(await store.setIfAbsent('once:a', 'first')).toBe(true);
        expect(await store.setIfAbsent('once:a', 'second')).toBe(false);
        expect(await store.get('once:a')).toBe('first');
      });

      test('lets exactly one of 100 parallel calls win', async () => {
        const results = await Promise.all(Array.from({ length: 100 }, (_, index) => store.setIfAbsent('once:race', index)));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.get('once:race')).toBe(results.indexOf(true));
      });

      test('treats an expired value as absent', async () => {
        expect(await store.setIfAbsent('once:ttl', 'old', { ttlSeconds: 60 })).toBe(true);
        clock += 59_000;
        expect(await store.setIfAbsent('once:ttl', 'new')).toBe(false);
        clock += 1_000;
        expect(await store.setIfAbsent('once:ttl', 'new')).toBe(true);
        expect(await store.get('once:ttl')).toBe('new');
      });
    });

    describe('logs', () => {
      test('reads an absent log as empty', async () => {
        expect(await store.readLog('log:none')).toEqual([]);
      });

      test('returns records in append order, byte for byte', async () => {
        const records = ['{"n":1}', '42', 'true', 'null', '  spaced  ', 'unicode: \u00e9\u4e2d\ud83d\ude00', 'tab\there', 'cr\rhere'];
        for (const record of records) await store.append('log:order', record);
        expect(await store.readLog('log:order')).toEqual(records);
      });

      test('keeps call order for appends that were not awaited one by one', async () => {
        const records = Array.from({ length: 50 }, (_, index) => `record ${index}`);
        await Promise.all(records.map((record) => store.append('log:parallel', record)));
        expect(await store.readLog('log:parallel')).toEqual(records);
      });

      test('keeps logs apart', async () => {
        await store.append('log:x', 'x1');
        await store.append('log:xy', 'xy1');
        await store.append('log:x', 'x2');
        expect(await store.readLog('log:x')).toEqual(['x1', 'x2']);
        expect(await store.readLog('log:xy')).toEqual(['xy1']);
      });

      test('refuses records with a newline, and empty records', async () => {
        await expect(store.append('log:bad', 'two\nlines')).rejects.toThrow(/\\n/);
        await expect(store.append('log:bad', '')).rejects.toThrow(TypeError);
        expect(await store.readLog('log:bad')).toEqual([]);
      });

      test('deletes a log', async () => {
        await store.append('log:del', 'a');
        await store.deleteLog('log:del');
        expect(await store.readLog('log:del')).toEqual([]);
        await store.append('log:del', 'b');
        expect(await store.readLog('log:del')).toEqual(['b']);
        await expect(store.deleteLog('log:never')).resolves.toBeUndefined();
      });

      test('lets writes wait for an unfinished delete of their key, in call order', async () => {
        await store.append('log:redo', 'before');
        await store.set('value:redo', 'before');
        // Neither delete is awaited before the writes that follow it are called.
        await Promise.all([store.deleteLog('log:redo'), store.append('log:redo', 'after'), store.delete('value:redo'), store.set('value:redo', 'after')]);
        expect(await store.readLog('log:redo')).toEqual(['after']);
        expect(await store.get('value:redo')).toBe('after');
      });

      test('moves a log to another key, replacing what was there, and leaves nothing at the old key', async () => {
        for (const record of ['a', 'b', 'c']) await store.append('log:move:from', record);
        await store.append('log:aside:to', 'replaced');
        await store.moveLog('log:move:from', 'log:aside:to');
        expect(await store.readLog('log:aside:to')).toEqual(['a', 'b', 'c']);
        expect(await store.readLog('log:move:from')).toEqual([]);
        expect(await store.list('log:move:')).toEqual([]);
        // Both keys go on working as logs.
        await store.append('log:move:from', 'fresh');
        await store.append('log:aside:to', 'd');
        expect(await store.readLog('log:move:from')).toEqual(['fresh']);
        expect(await store.readLog('log:aside:to')).toEqual(['a', 'b', 'c', 'd']);
      });

      test('moves nothing when there is no log at the old key', async () => {
        await store.append('log:kept', 'stays');
        await expect(store.moveLog('log:none', 'log:kept')).resolves.toBeUndefined();
        expect(await store.readLog('log:kept')).toEqual(['stays']);
        expect(await store.readLog('log:none')).toEqual([]);
      });
    });

    describe('withLock', () => {
      test('runs holders of one key one at a time, in call order', async () => {
        let active = 0;
        let maxActive = 0;
        const order: number[] = [];
        await Promise.all(
          Array.from({ length: 10 }, (_, index) =>
            store.withLock('lock:a', async () => {
              active++;
              maxActive = Math.max(maxActive, active);
              await new Promise((resolve) => setTimeout(resolve, 2));
              order.push(index);
              active--;
            }),
          ),
        );
        expect(maxActive).toBe(1);
        expect(order).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      });

      test('does not make different keys wait for each other', async () => {
        let release!: () => void;
        const blocker = store.withLock('lock:b', () => new Promise<void>((resolve) => (release = resolve)));
        await expect(store.withLock('lock:c', async () => 'free')).resolves.toBe('free');
        release();
        await blocker;
      });

      test('returns the result, releases on failure and may write its own key', async () => {
        await expect(store.withLock('lock:d', async () => { throw new Error('boom'); })).rejects.toThrow('boom');
        const result = await store.withLock('lock:d', async () => {
          await store.set('lock:d', 'written inside');
          return store.get('lock:d');
        });
        expect(result).toBe('written inside');
      });
    });
  });
}

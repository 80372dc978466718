import { describe, expect, it } from 'vitest';
import { createJournal } from '../../src/gateway/journal.ts';
import { createStore, type Store } from '../../src/store/index.ts';
import { makeTempDir } from '../helpers/temp-dir.ts';

describe('journal', () => {
  it('keeps values in memory and in appended records, and reads them back in a new process', async () => {
    const base = await makeTempDir('operator-journal-');
    const journal = createJournal<{ n: number }>(createStore({ driver: 'fs', base }), { name: 'test', ttlSeconds: 3_600 });
    await journal.set('a', { n: 1 });
    await journal.set('b', { n: 2 });
    expect(await journal.setIfAbsent('a', { n: 9 })).toBe(false);
    expect(await journal.setIfAbsent('c', { n: 3 })).toBe(true);
    await journal.set('a', { n: 4 });
    await journal.delete('b');
    expect(await journal.get('a')).toEqual({ n: 4 });
    expect(await journal.get('b')).toBeUndefined();

    const reopened = createJournal<{ n: number }>(createStore({ driver: 'fs', base }), { name: 'test', ttlSeconds: 3_600 });
    expect(await reopened.entries()).toEqual([
      ['c', { n: 3 }],
      ['a', { n: 4 }],
    ]);
  });

  it('reads back from a store that lists a log by its records (memory, Redis)', async () => {
    const store = createStore({ driver: 'memory' });
    const journal = createJournal<string>(store, { name: 'test', ttlSeconds: 3_600 });
    for (const key of ['x', 'y', 'z']) await journal.set(key, key.toUpperCase());
    await journal.delete('y');
    expect(await createJournal<string>(store, { name: 'test', ttlSeconds: 3_600 }).entries()).toEqual([
      ['x', 'X'],
      ['z', 'Z'],
    ]);
  });

  it('lets exactly one of concurrent setIfAbsent calls through, and none keeps a key its append failed for', async () => {
    const store = createStore({ driver: 'memory' });
    const journal = createJournal<number>(store, { name: 'test', ttlSeconds: 60 });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => journal.setIfAbsent('k', i)));
    expect(results.filter(Boolean)).toHaveLength(1);

    const failing: Store = Object.assign(Object.create(store) as Store, { append: () => Promise.reject(new Error('disk full')) });
    const broken = createJournal<number>(failing, { name: 'other', ttlSeconds: 60 });
    await expect(broken.setIfAbsent('x', 1)).rejects.toThrow('disk full');
    expect(await broken.get('x')).toBeUndefined();
  });

  it('expires values after the TTL and deletes logs that hold only expired ones', async () => {
    let now = 1_000_000;
    const store = createStore({ driver: 'memory', now: () => now });
    const journal = createJournal<number>(store, { name: 'test', ttlSeconds: 48, now: () => now });
    /** Segment numbers with a log (the memory store lists a log's records as `<log key>:<n>`). */
    const segments = async () => new Set((await store.list('journal:test:')).map((key) => key.split(':')[2]));
    await journal.set('early', 1);
    const [first] = await segments();
    now += 30_000;
    await journal.set('later', 2);
    now += 20_000;
    expect(await journal.get('early')).toBeUndefined();
    expect(await journal.get('later')).toBe(2);
    expect(await journal.setIfAbsent('early', 3)).toBe(true);
    now += 60_000;
    await journal.get('anything');
    expect(await segments()).not.toContain(first);
    expect(await createJournal<number>(store, { name: 'test', ttlSeconds: 48, now: () => now }).entries()).toEqual([]);
  });
});

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDedupe, keySegment } from '../../src/gateway/dedupe.ts';
import { createStore } from '../../src/store/index.ts';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('createDedupe', () => {
  it('says first time once per key', async () => {
    const dedupe = createDedupe(createStore({ driver: 'memory' }));
    expect(await dedupe.firstTime('telegram:update:1')).toBe(true);
    expect(await dedupe.firstTime('telegram:update:1')).toBe(false);
    expect(await dedupe.firstTime('telegram:update:2')).toBe(true);
  });

  it('lets exactly one of concurrent deliveries through', async () => {
    const dedupe = createDedupe(createStore({ driver: 'memory' }));
    const results = await Promise.all(Array.from({ length: 20 }, () => dedupe.firstTime('slack:event:Ev1')));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('remembers keys across a reopened filesystem store (a restart)', async () => {
    const base = mkdtempSync(join(tmpdir(), 'operator-dedupe-'));
    folders.push(base);
    const before = createStore({ driver: 'fs', base });
    expect(await createDedupe(before).firstTime('telegram:update:99')).toBe(true);
    await before.close();
    const after = createStore({ driver: 'fs', base });
    expect(await createDedupe(after).firstTime('telegram:update:99')).toBe(false);
    expect(await createDedupe(after).firstTime('telegram:update:100')).toBe(true);
    await after.close();
  });

  it('forgets a key after its TTL', async () => {
    let now = 1_000_000;
    const dedupe = createDedupe(createStore({ driver: 'memory', now: () => now }), { ttlSeconds: 60, now: () => now });
    expect(await dedupe.firstTime('k')).toBe(true);
    now += 59_000;
    expect(await dedupe.firstTime('k')).toBe(false);
    now += 2_000;
    expect(await dedupe.firstTime('k')).toBe(true);
  });

  it('accepts keys with characters the store refuses', async () => {
    const base = mkdtempSync(join(tmpdir(), 'operator-dedupe-'));
    folders.push(base);
    const store = createStore({ driver: 'fs', base });
    const dedupe = createDedupe(store);
    for (const key of ['a/b', '..', '.', '', 'x?y', 'line\nbreak', 'end$', 'ü:ñ', 'k'.repeat(500)]) {
      expect(await dedupe.firstTime(key)).toBe(true);
      expect(await dedupe.firstTime(key)).toBe(false);
    }
    expect(await dedupe.firstTime('a:b')).toBe(true);
    expect(await dedupe.firstTime('a%3Ab')).toBe(true);
    await store.close();
  });
});

describe('keySegment', () => {
  it('gives distinct single segments', () => {
    const texts = ['a:b', 'a%3Ab', '.', '..', '', 'a.b', 'A.B'];
    const segments = texts.map(keySegment);
    expect(new Set(segments).size).toBe(texts.length);
    for (const segment of segments) expect(segment).toMatch(/^[^:/\\?.]+$/);
  });

  it('hashes long texts to a bounded length', () => {
    expect(keySegment('x'.repeat(1_000)).length).toBeLessThanOrEqual(160);
  });
});

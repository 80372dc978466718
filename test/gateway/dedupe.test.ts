import { appendFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDedupe, keySegment } from '../../src/gateway/dedupe.ts';
import type { JournalDamage } from '../../src/gateway/journal.ts';
import { createStore, type Store } from '../../src/store/index.ts';
import { FaultyStore } from '../helpers/faulty-store.ts';

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

describe('createDedupe after its journal lost records (fails closed)', () => {
  const hour = 3_600_000;
  const start = 1_700_000_000_000;

  /** A dedupe on `store` at the clock `now`, with its damage reports and log lines. */
  function dedupeOn(store: Store, now: () => number) {
    const reports: JournalDamage[] = [];
    const lines: string[] = [];
    const dedupe = createDedupe(store, { now, onDamage: (report) => reports.push(report), log: (line) => lines.push(line) });
    return { dedupe, reports, lines };
  }

  /** Five updates seen and answered, a minute apart; the clock then stands an hour later. */
  async function fiveAnswered(store: Store, clock: { at: number }): Promise<{ key: string; sentAt: number }[]> {
    const { dedupe } = dedupeOn(store, () => clock.at);
    const updates = [1, 2, 3, 4, 5].map((index) => ({ key: `telegram:update:${index}`, sentAt: start + index * 60_000 - 500 }));
    for (const update of updates) {
      clock.at = update.sentAt + 500;
      expect(await dedupe.firstTime(update.key, update.sentAt)).toBe(true);
    }
    clock.at = start + hour;
    return updates;
  }

  it('answers none of five redelivered updates when its journal cannot be read, logging each, and takes new ones', async () => {
    const clock = { at: start };
    const inner = createStore({ driver: 'memory', now: () => clock.at });
    const updates = await fiveAnswered(inner, clock);
    const faulty = new FaultyStore(inner);
    faulty.fail('EIO', { operations: ['readLog'], keys: 'journal:dedupe:' });

    const { dedupe, reports, lines } = dedupeOn(faulty, () => clock.at);
    for (const update of updates) expect(await dedupe.firstTime(update.key, update.sentAt)).toBe(false);
    expect(reports).toMatchObject([{ journal: 'dedupe', kind: 'unreadable', error: 'EIO', keysUnknown: true }]);
    expect(lines).toHaveLength(5);
    expect(lines[0]).toMatch(/^dedupe: telegram:update:1 not answered: sent .*, before records of the dedupe journal were lost .*; 1 refused so far$/);
    expect(lines[4]).toMatch(/5 refused so far$/);
    // A second redelivery of a refused update is a plain repeat: not logged again.
    expect(await dedupe.firstTime('telegram:update:3', updates[2]!.sentAt)).toBe(false);
    expect(lines).toHaveLength(5);
    expect(dedupe.damageWindow()).toMatchObject({ refused: 5 });

    // Sent now (after the damage), or without a platform time (the web chat): new.
    expect(await dedupe.firstTime('telegram:update:6', clock.at - 1_000)).toBe(true);
    expect(await dedupe.firstTime('web:message:1')).toBe(true);
    expect(await dedupe.firstTime('telegram:update:7', clock.at + 1_000)).toBe(true);
    expect(await dedupe.firstTime('telegram:update:6', clock.at - 1_000)).toBe(false);
  });

  it('keeps refusing after a restart, and stops once the lost records would have expired', async () => {
    const clock = { at: start };
    const inner = createStore({ driver: 'memory', now: () => clock.at });
    const updates = await fiveAnswered(inner, clock);
    const faulty = new FaultyStore(inner);
    faulty.fail('EIO', { operations: ['readLog'], keys: 'journal:dedupe:' });
    const first = dedupeOn(faulty, () => clock.at);
    expect(await first.dedupe.firstTime(updates[0]!.key, updates[0]!.sentAt)).toBe(false);
    faulty.heal();

    // The segment was set aside: a restart finds no damage, but remembers the window.
    clock.at += hour;
    const restarted = dedupeOn(inner, () => clock.at);
    expect(await restarted.dedupe.firstTime(updates[1]!.key, updates[1]!.sentAt)).toBe(false);
    expect(restarted.reports).toEqual([]);
    expect(restarted.lines).toHaveLength(1);
    expect(restarted.dedupe.damageWindow()).toBeDefined();

    // A day after the damaged segment's last write its records would have expired anyway.
    clock.at = start + 26 * hour;
    const later = dedupeOn(inner, () => clock.at);
    expect(later.dedupe.damageWindow()).toBeUndefined();
    expect(await later.dedupe.firstTime(updates[2]!.key, updates[2]!.sentAt)).toBe(true);
    expect(later.lines).toEqual([]);
  });

  it('refuses from the current segment\'s damage only messages sent before it was found', async () => {
    const clock = { at: start };
    const inner = createStore({ driver: 'memory', now: () => clock.at });
    const updates = await fiveAnswered(inner, clock);
    // Found a second after the last write, in the same segment.
    clock.at = updates[4]!.sentAt + 1_500;
    const faulty = new FaultyStore(inner);
    faulty.fail('EIO', { operations: ['readLog'], keys: 'journal:dedupe:' });
    const { dedupe } = dedupeOn(faulty, () => clock.at);
    expect(await dedupe.firstTime(updates[4]!.key, updates[4]!.sentAt)).toBe(false);
    expect(dedupe.damageWindow()).toMatchObject({ sentBefore: clock.at });
    expect(await dedupe.firstTime('telegram:update:11', clock.at - 1)).toBe(false);
    expect(await dedupe.firstTime('telegram:update:12', clock.at)).toBe(true);
  });

  it('refuses only messages sent before the damaged segment was last written (a minute of clock skew allowed)', async () => {
    const clock = { at: start };
    const inner = createStore({ driver: 'memory', now: () => clock.at });
    const updates = await fiveAnswered(inner, clock);
    const segmentEnd = (Math.floor(updates[4]!.sentAt / hour) + 1) * hour;
    // The gateway was down for a while; messages sent meanwhile arrive with the restart.
    clock.at = segmentEnd + 3 * hour;
    const faulty = new FaultyStore(inner);
    faulty.fail('EIO', { operations: ['readLog'], keys: 'journal:dedupe:' });
    const { dedupe } = dedupeOn(faulty, () => clock.at);
    expect(await dedupe.firstTime(updates[0]!.key, updates[0]!.sentAt)).toBe(false);
    expect(await dedupe.firstTime('telegram:update:7', segmentEnd + 30_000)).toBe(false);
    expect(await dedupe.firstTime('telegram:update:8', segmentEnd + 61_000)).toBe(true);
    expect(dedupe.damageWindow()).toMatchObject({ sentBefore: segmentEnd + 60_000, until: segmentEnd + 24 * hour });
  });

  it('keeps a torn record whose key is readable as seen, and needs no window for it', async () => {
    const base = mkdtempSync(join(tmpdir(), 'operator-dedupe-'));
    folders.push(base);
    const clock = { at: start };
    const updates = await fiveAnswered(createStore({ driver: 'fs', base }), clock);
    const store = createStore({ driver: 'fs', base });
    const [segment] = await store.list('journal:dedupe:');
    appendFileSync(join(base, ...segment!.split(':')), '{"k":"telegram:update:6","t":1700000400000,"v');

    const { dedupe, reports, lines } = dedupeOn(store, () => clock.at);
    expect(await dedupe.firstTime('telegram:update:6', start)).toBe(false);
    expect(await dedupe.firstTime(updates[0]!.key, updates[0]!.sentAt)).toBe(false);
    expect(await dedupe.firstTime('telegram:update:9', start)).toBe(true);
    expect(reports).toMatchObject([{ kind: 'torn-tail', salvagedKeys: 1, keysUnknown: false }]);
    expect(dedupe.damageWindow()).toBeUndefined();
    expect(lines).toEqual([]);
    const restarted = dedupeOn(createStore({ driver: 'fs', base }), () => clock.at);
    expect(await restarted.dedupe.firstTime('telegram:update:6', start)).toBe(false);
  });

  it('says whether a message counts as seen without recording a new one', async () => {
    const clock = { at: start };
    const inner = createStore({ driver: 'memory', now: () => clock.at });
    const updates = await fiveAnswered(inner, clock);
    const faulty = new FaultyStore(inner);
    faulty.fail('EIO', { operations: ['readLog'], keys: 'journal:dedupe:' });
    const { dedupe, lines } = dedupeOn(faulty, () => clock.at);
    expect(await dedupe.seen(updates[0]!.key, updates[0]!.sentAt)).toBe(true);
    expect(lines).toHaveLength(1);
    expect(await dedupe.firstTime(updates[0]!.key, updates[0]!.sentAt)).toBe(false);
    expect(lines).toHaveLength(1);
    expect(await dedupe.seen('telegram:update:new', clock.at)).toBe(false);
    expect(await dedupe.seen('telegram:update:new', clock.at)).toBe(false);
    expect(await dedupe.firstTime('telegram:update:new', clock.at)).toBe(true);
    expect(await dedupe.seen('telegram:update:new', clock.at)).toBe(true);
  });

  it('answers nothing on the strength of a window it could not save: the store failure is thrown', async () => {
    const clock = { at: start };
    const inner = createStore({ driver: 'memory', now: () => clock.at });
    const updates = await fiveAnswered(inner, clock);
    const faulty = new FaultyStore(inner);
    faulty.fail('EIO', { operations: ['readLog'], keys: 'journal:dedupe:' });
    const { dedupe } = dedupeOn(faulty, () => clock.at);
    faulty.fail('ENOSPC', { operations: ['readLog', 'set', 'append', 'moveLog', 'deleteLog'] });
    await expect(dedupe.firstTime('telegram:update:10', clock.at)).rejects.toMatchObject({ name: 'StoreError', code: 'ENOSPC' });
    faulty.heal();
    expect(await dedupe.firstTime(updates[0]!.key, updates[0]!.sentAt)).toBe(false);
    expect(await dedupe.firstTime('telegram:update:10', clock.at)).toBe(true);
    expect(await inner.get('dedupe-damage')).toMatchObject({ sentBefore: expect.any(Number) });
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

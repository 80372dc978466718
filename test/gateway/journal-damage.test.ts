/**
 * Damaged journal segments: each kind is reported once, moved aside, its readable records kept,
 * the journal goes on working, and a new journal over the same store (a restart) sees the kept
 * records and reports nothing again.
 */
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createStorage } from 'unstorage';
import memoryDriver from 'unstorage/drivers/memory';
import { describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/channels/types.ts';
import { createInbox } from '../../src/gateway/inbox.ts';
import { createJournal, describeJournalDamage, type JournalDamage, type JournalOptions } from '../../src/gateway/journal.ts';
import { createDeliveryLedger } from '../../src/gateway/ledger/index.ts';
import { createStore, type Store } from '../../src/store/index.ts';
import { FaultyStore } from '../helpers/faulty-store.ts';
import { makeTempDir } from '../helpers/temp-dir.ts';

/** One hour of TTL: segments of 150 s. */
const ttlSeconds = 3_600;
const segmentMs = 150_000;
const start = 1_700_000_100_000;

/** A journal named `test` over `store` on the clock `now`, collecting its damage reports. */
function open(store: Store, now: () => number, extra: Partial<JournalOptions<{ n: number }>> = {}) {
  const reports: JournalDamage[] = [];
  const journal = createJournal<{ n: number }>(store, { name: 'test', ttlSeconds, now, onDamage: (report) => reports.push(report), ...extra });
  return { journal, reports };
}

/** The file of a store key under `base`. */
function fileOf(base: string, key: string): string {
  return join(base, ...key.split(':'));
}

/** Writes `a`..`e` (n = 1..5) into one segment and returns it. */
async function fiveRecords(store: Store, now: () => number): Promise<string> {
  const { journal } = open(store, now);
  for (const [index, key] of ['a', 'b', 'c', 'd', 'e'].entries()) await journal.set(key, { n: index + 1 });
  const [segment] = await store.list('journal:test:');
  return segment!.split(':').slice(0, 3).join(':');
}

describe('journal damage', () => {
  it('reports garbage in the middle of a segment once, moves the segment aside, keeps every readable record, and works on', async () => {
    const base = await makeTempDir('operator-journal-damage-');
    const now = () => start;
    const store = createStore({ driver: 'fs', base });
    const segment = await fiveRecords(store, now);
    // Damage between records 2 and 3 (a disk error, a stray write).
    const text = readFileSync(fileOf(base, segment), 'utf8').split('\n');
    writeFileSync(fileOf(base, segment), [...text.slice(0, 2), 'g@rbage\u0000\u0000', ...text.slice(2)].join('\n'));

    const reopened = createStore({ driver: 'fs', base });
    const { journal, reports } = open(reopened, now);
    expect((await journal.entries()).map(([key]) => key)).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({
      journal: 'test',
      segment,
      kind: 'damaged-records',
      damagedRecords: 1,
      tornTail: false,
      keptRecords: 5,
      salvagedKeys: 0,
      keysUnknown: true,
      movedTo: `journal-damaged:test:${segment.split(':')[2]}:${start}`,
    });
    expect(reports[0]!.repairError).toBeUndefined();
    // The damaged copy is kept as it was, for inspection; the segment holds the good records only.
    expect(readFileSync(fileOf(base, reports[0]!.movedTo!), 'utf8')).toContain('g@rbage');
    expect(readFileSync(fileOf(base, segment), 'utf8')).not.toContain('g@rbage');
    expect(await reopened.readLog(segment)).toHaveLength(5);
    expect(describeJournalDamage(reports[0]!)).toMatch(/journal test: segment journal:test:\d+ holds 1 damaged record; 5 records kept, records written .* may be lost; damaged copy kept as journal-damaged:test:/);

    await journal.set('f', { n: 6 });
    await journal.delete('a');
    const restarted = open(createStore({ driver: 'fs', base }), now);
    expect(await restarted.journal.entries()).toEqual([
      ['b', { n: 2 }],
      ['c', { n: 3 }],
      ['d', { n: 4 }],
      ['e', { n: 5 }],
      ['f', { n: 6 }],
    ]);
    expect(restarted.reports).toEqual([]);
  });

  it('reports a torn last record, salvages its key when the journal asks for it, and says nothing of a blank tail', async () => {
    const base = await makeTempDir('operator-journal-damage-');
    const now = () => start;
    const store = createStore({ driver: 'fs', base });
    const segment = await fiveRecords(store, now);
    // A full disk cut the append of `f` short after its key and time.
    appendFileSync(fileOf(base, segment), `{"k":"f","t":${start},"v":{"n":`);

    const salvaging = open(createStore({ driver: 'fs', base }), now, { salvage: () => ({ n: 0 }) });
    expect(await salvaging.journal.get('f')).toEqual({ n: 0 });
    expect(salvaging.reports).toHaveLength(1);
    expect(salvaging.reports[0]).toMatchObject({ kind: 'torn-tail', damagedRecords: 1, tornTail: true, keptRecords: 6, salvagedKeys: 1, keysUnknown: false });

    const restarted = open(createStore({ driver: 'fs', base }), now);
    expect((await restarted.journal.entries()).map(([key, value]) => `${key}=${value.n}`)).toEqual(['a=1', 'b=2', 'c=3', 'd=4', 'e=5', 'f=0']);
    expect(restarted.reports).toEqual([]);

    // Only spaces after the last newline: nothing was being written there.
    appendFileSync(fileOf(base, segment), '   ');
    const blank = open(createStore({ driver: 'fs', base }), now);
    expect(await blank.journal.entries()).toHaveLength(6);
    expect(blank.reports).toEqual([]);
  });

  it('reports a torn last record whose key was cut off as records lost, keeping the others', async () => {
    const base = await makeTempDir('operator-journal-damage-');
    const now = () => start;
    const store = createStore({ driver: 'fs', base });
    const segment = await fiveRecords(store, now);
    appendFileSync(fileOf(base, segment), '{"k":"som');

    const { journal, reports } = open(createStore({ driver: 'fs', base }), now);
    expect(await journal.entries()).toHaveLength(5);
    expect(reports).toMatchObject([{ kind: 'torn-tail', keptRecords: 5, salvagedKeys: 0, keysUnknown: true, writtenFrom: Math.floor(start / segmentMs) * segmentMs }]);
    // The journal appends to the repaired segment: the torn line is gone and does not end up mid-log.
    await journal.set('g', { n: 7 });
    expect(readFileSync(fileOf(base, segment), 'utf8')).not.toContain('som');
    const restarted = open(createStore({ driver: 'fs', base }), now);
    expect(await restarted.journal.entries()).toHaveLength(6);
    expect(restarted.reports).toEqual([]);
  });

  it('applies a torn deletion whose kind is still readable', async () => {
    const base = await makeTempDir('operator-journal-damage-');
    const now = () => start;
    const segment = await fiveRecords(createStore({ driver: 'fs', base }), now);
    appendFileSync(fileOf(base, segment), `{"k":"c","t":${start},"x`);
    const { journal, reports } = open(createStore({ driver: 'fs', base }), now);
    expect((await journal.entries()).map(([key]) => key)).toEqual(['a', 'b', 'd', 'e']);
    expect(reports).toMatchObject([{ kind: 'torn-tail', salvagedKeys: 1, keysUnknown: false }]);
    expect((await open(createStore({ driver: 'fs', base }), now).journal.entries()).map(([key]) => key)).toEqual(['a', 'b', 'd', 'e']);
  });

  it('reports a segment that cannot be read (EIO), moves it aside, keeps the other segments, and works on', async () => {
    let at = start;
    const now = () => at;
    const inner = createStore({ driver: 'memory', now });
    const { journal: writer } = open(inner, now);
    await writer.set('early', { n: 1 });
    at += segmentMs;
    await writer.set('late', { n: 2 });
    const segments = [...new Set((await inner.list('journal:test:')).map((key) => key.split(':').slice(0, 3).join(':')))];
    expect(segments).toHaveLength(2);

    const faulty = new FaultyStore(inner);
    faulty.fail('EIO', { operations: ['readLog'], keys: segments[0] });
    const { journal, reports } = open(faulty, now);
    expect(await journal.entries()).toEqual([['late', { n: 2 }]]);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ segment: segments[0], kind: 'unreadable', error: 'EIO', keptRecords: 0, keysUnknown: true, movedTo: `journal-damaged:test:${segments[0]!.split(':')[2]}:${at}` });
    expect(describeJournalDamage(reports[0]!)).toContain('could not be read (EIO)');
    await journal.set('after', { n: 3 });

    // The disk is fine again: the damaged copy can be inspected, and a restart reads what was kept.
    faulty.heal();
    expect(await inner.readLog(reports[0]!.movedTo!)).toHaveLength(1);
    const restarted = open(inner, now);
    expect((await restarted.journal.entries()).map(([key]) => key)).toEqual(['late', 'after']);
    expect(restarted.reports).toEqual([]);
  });

  it('reports a folder standing where a segment should be, and moves it aside', async () => {
    const base = await makeTempDir('operator-journal-damage-');
    const now = () => start;
    const segment = await fiveRecords(createStore({ driver: 'fs', base }), now);
    const stray = `journal:test:${Number(segment.split(':')[2]) - 1}`;
    mkdirSync(fileOf(base, stray), { recursive: true });
    writeFileSync(join(fileOf(base, stray), 'stray'), 'x');

    const { journal, reports } = open(createStore({ driver: 'fs', base }), now);
    expect(await journal.entries()).toHaveLength(5);
    expect(reports).toMatchObject([{ segment: stray, kind: 'unreadable', error: 'EISDIR', keptRecords: 0 }]);
    expect(readFileSync(join(fileOf(base, reports[0]!.movedTo!), 'stray'), 'utf8')).toBe('x');
    await journal.set('f', { n: 6 });
    const restarted = open(createStore({ driver: 'fs', base }), now);
    expect(await restarted.journal.entries()).toHaveLength(6);
    expect(restarted.reports).toEqual([]);
  });

  it('works on with what it read when the damaged segment cannot be moved aside, and reports it again at the next start', async () => {
    const now = () => start;
    const inner = createStore({ driver: 'memory', now });
    const segment = await fiveRecords(inner, now);
    await inner.append(segment, 'not a record');
    await inner.append(segment, JSON.stringify({ k: 'f', t: start, v: { n: 6 } }));
    const faulty = new FaultyStore(inner);
    faulty.fail('EROFS');

    const { journal, reports } = open(faulty, now);
    expect(await journal.entries()).toHaveLength(6);
    expect(reports).toHaveLength(1);
    expect(reports[0]).toMatchObject({ kind: 'damaged-records', damagedRecords: 1, keptRecords: 6 });
    expect(reports[0]!.movedTo).toBeUndefined();
    expect(reports[0]!.repairError).toMatch(/EROFS/);
    expect(describeJournalDamage(reports[0]!)).toMatch(/damaged copy left in place; repair failed: .*EROFS/);
    // Reading goes on; writes fail as the store does.
    expect(await journal.get('f')).toEqual({ n: 6 });
    await expect(journal.set('g', { n: 7 })).rejects.toMatchObject({ code: 'EROFS' });

    faulty.heal();
    const restarted = open(faulty, now);
    expect(await restarted.journal.entries()).toHaveLength(6);
    expect(restarted.reports).toMatchObject([{ kind: 'damaged-records', keptRecords: 6 }]);
    expect(restarted.reports[0]!.movedTo).toBeDefined();
    expect(open(faulty, now).reports).toEqual([]);
  });

  it('finishes a repair a crash cut short after setting the damaged segment aside, and drops one cut short before', async () => {
    const now = () => start;
    const store = createStore({ driver: 'memory', now });
    const segment = Math.floor(start / segmentMs);
    const record = (k: string, n: number) => JSON.stringify({ k, t: start - segmentMs, v: { n } });
    // After step 2: the damaged segment is aside, its repair not yet in place.
    await store.append(`journal-damaged:test:${segment}:${start - 5}`, record('kept', 1));
    await store.append(`journal-damaged:test:${segment}:${start - 5}`, 'garbage');
    await store.append(`journal-repair:test:${segment}:${start - 5}`, record('kept', 1));
    // Before step 2: the damaged segment is still in place beside a partial repair.
    await store.append(`journal:test:${segment - 1}`, record('old', 2));
    await store.append(`journal:test:${segment - 1}`, 'garbage');
    await store.append(`journal:test:${segment - 1}`, record('older', 3));
    await store.append(`journal-repair:test:${segment - 1}:${start - 5}`, record('old', 2));

    const { journal, reports } = open(store, now);
    expect((await journal.entries()).map(([key]) => key).sort()).toEqual(['kept', 'old', 'older']);
    expect(reports).toMatchObject([{ segment: `journal:test:${segment - 1}`, keptRecords: 2 }]);
    expect(await store.list('journal-repair:')).toEqual([]);
    const restarted = open(store, now);
    expect(await restarted.journal.entries()).toHaveLength(3);
    expect(restarted.reports).toEqual([]);
  });

  it('reads a repair that could not be put in place before the records appended to the segment since', async () => {
    const base = await makeTempDir('operator-journal-damage-');
    const now = () => start;
    const segment = await fiveRecords(createStore({ driver: 'fs', base }), now);
    appendFileSync(fileOf(base, segment), 'garbage\n');
    const inner = createStore({ driver: 'fs', base });
    const faulty = new FaultyStore(inner);
    // Step 3 fails: the repaired records cannot be put back in the segment's place.
    faulty.fail('EIO', { operations: ['moveLog'], keys: 'journal-repair:' });
    const { journal, reports } = open(faulty, now);
    expect(await journal.entries()).toHaveLength(5);
    expect(reports[0]).toMatchObject({ movedTo: expect.stringMatching(/^journal-damaged:test:/), repairError: expect.stringMatching(/EIO/) });
    faulty.heal();
    // The journal works on: new records go to a fresh log under the segment's key.
    await journal.delete('a');
    await journal.set('f', { n: 6 });

    const restarted = open(createStore({ driver: 'fs', base }), now);
    expect((await restarted.journal.entries()).map(([key, value]) => `${key}=${value.n}`)).toEqual(['b=2', 'c=3', 'd=4', 'e=5', 'f=6']);
    expect(restarted.reports).toEqual([]);
    expect(await open(createStore({ driver: 'fs', base }), now).journal.entries()).toHaveLength(5);
  });

  it('reports a damaged record of a log kept one key per record (memory, Redis)', async () => {
    const now = () => start;
    const storage = createStorage({ driver: memoryDriver() });
    const store = createStore({ storage, now });
    const segment = await fiveRecords(store, now);
    // Something overwrote the third record's key.
    await storage.setItem(`${segment}:000000000002`, 'overwritten');
    const { journal, reports } = open(store, now);
    expect((await journal.entries()).map(([key]) => key)).toEqual(['a', 'b', 'd', 'e']);
    expect(reports).toMatchObject([{ kind: 'damaged-records', damagedRecords: 1, keptRecords: 4, keysUnknown: true }]);
    expect(await store.readLog(reports[0]!.movedTo!)).toContain('"overwritten"');
    const restarted = open(store, now);
    expect(await restarted.journal.entries()).toHaveLength(4);
    expect(restarted.reports).toEqual([]);
  });

  it('writes a report to stderr when no listener is given', async () => {
    const now = () => start;
    const store = createStore({ driver: 'memory', now });
    await store.append(`journal:test:${Math.floor(start / segmentMs)}`, 'garbage');
    const written: string[] = [];
    const original = process.stderr.write.bind(process.stderr);
    process.stderr.write = ((chunk: string | Uint8Array) => (written.push(String(chunk)), true)) as typeof process.stderr.write;
    try {
      await createJournal(store, { name: 'test', ttlSeconds, now }).entries();
    } finally {
      process.stderr.write = original;
    }
    expect(written.join('')).toMatch(/^operator: journal test: segment journal:test:\d+ ends in a torn record/);
  });
});

describe('journal damage in the inbox and the ledger', () => {
  function message(index: number): InboundMessage {
    return {
      id: String(index),
      dedupeKey: `telegram:update:${index}`,
      sessionKey: 'telegram:dm:42',
      address: { platform: 'telegram', conversationId: '42' },
      scope: 'dm',
      sender: { id: '42' },
      text: `message ${index}`,
      attachments: [],
      mentioned: true,
      receivedAt: start + index,
      raw: {},
    };
  }

  it('reports an inbox segment that cannot be read instead of losing five accepted messages without a word', async () => {
    const now = () => start;
    const inner = createStore({ driver: 'memory', now });
    const inbox = createInbox(inner, { now });
    for (let index = 1; index <= 5; index++) await inbox.add(message(index), `message ${index}`);
    const faulty = new FaultyStore(inner);
    faulty.fail('EIO', { operations: ['readLog'], keys: 'journal:inbox:' });
    const reports: JournalDamage[] = [];
    const restarted = createInbox(faulty, { now, onDamage: (report) => reports.push(report) });
    expect(await restarted.pending()).toEqual([]);
    expect(reports).toMatchObject([{ journal: 'inbox', kind: 'unreadable', error: 'EIO', keysUnknown: true }]);
    expect(reports[0]!.movedTo).toMatch(/^journal-damaged:inbox:/);
    // The messages are in the damaged copy, for a person to look at.
    faulty.heal();
    expect(await inner.readLog(reports[0]!.movedTo!)).toHaveLength(5);
  });

  it('reports a torn inbox tail and keeps the four messages before it', async () => {
    const base = await makeTempDir('operator-journal-damage-');
    const now = () => start;
    const store = createStore({ driver: 'fs', base });
    const inbox = createInbox(store, { now });
    for (let index = 1; index <= 4; index++) await inbox.add(message(index), `message ${index}`);
    const [segment] = await store.list('journal:inbox:');
    appendFileSync(fileOf(base, segment!), '{"k":"telegram:update:5","t":1700000100000,"v":{"dedupeKey":"tele');

    const reports: JournalDamage[] = [];
    const restarted = createInbox(createStore({ driver: 'fs', base }), { now, onDamage: (report) => reports.push(report) });
    expect((await restarted.pending()).map((entry) => entry.key)).toEqual([1, 2, 3, 4].map((index) => `telegram:update:${index}`));
    expect(reports).toMatchObject([{ journal: 'inbox', kind: 'torn-tail', keptRecords: 4, salvagedKeys: 1, keysUnknown: false }]);
    expect(JSON.stringify(reports)).not.toContain('message ');
  });

  it('reports a torn ledger tail', async () => {
    const base = await makeTempDir('operator-journal-damage-');
    const now = () => start;
    const store = createStore({ driver: 'fs', base });
    const ledger = createDeliveryLedger(store, { now });
    for (let index = 1; index <= 4; index++) {
      await ledger.record({ sessionKey: 'telegram:dm:42', address: { platform: 'telegram', conversationId: '42' }, text: `reply ${index}`, turnId: `turn-${index}` });
    }
    const [segment] = await store.list('journal:ledger:');
    appendFileSync(fileOf(base, segment!), '{"k":"turn-5","t":17000');

    const reports: JournalDamage[] = [];
    const restarted = createDeliveryLedger(createStore({ driver: 'fs', base }), { now, onDamage: (report) => reports.push(report) });
    expect(await restarted.pending()).toHaveLength(4);
    expect(reports).toMatchObject([{ journal: 'ledger', kind: 'torn-tail', keptRecords: 4, salvagedKeys: 1 }]);
  });

  it('keeps a salvaged key for the TTL even when its time was cut off', async () => {
    let at = start;
    const now = () => at;
    const base = await makeTempDir('operator-journal-damage-');
    const segment = await fiveRecords(createStore({ driver: 'fs', base }), now);
    appendFileSync(fileOf(base, segment), '{"k":"f","t":17000');
    const { journal } = open(createStore({ driver: 'fs', base }), now, { salvage: () => ({ n: 0 }) });
    expect(await journal.get('f')).toEqual({ n: 0 });
    at += 60_000;
    expect(await journal.get('f')).toEqual({ n: 0 });
  });
});

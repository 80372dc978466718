import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { StoreHealth } from '../../../src/gateway/health/store-health.ts';
import type { JournalDamage } from '../../../src/gateway/journal.ts';
import { createStore } from '../../../src/store/index.ts';
import { FaultyStore } from '../../helpers/faulty-store.ts';
import { mountSmallDisk, type SmallDisk } from '../../helpers/small-disk.ts';

/** The error a failing store operation rejects with. */
async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the operation to fail');
    },
    (error: unknown) => error,
  );
}

function damage(overrides: Partial<JournalDamage> = {}): JournalDamage {
  return {
    journal: 'inbox',
    segment: 'journal:inbox:472222',
    kind: 'unreadable',
    damagedRecords: 0,
    tornTail: false,
    keptRecords: 0,
    salvagedKeys: 0,
    keysUnknown: true,
    writtenFrom: 1_700_000_000_000,
    writtenUntil: 1_700_003_600_000,
    error: 'EIO',
    foundAt: 1_700_000_000_000,
    movedTo: 'journal-damaged:inbox:472222:1700000000000',
    ...overrides,
  };
}

describe('StoreHealth', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('turns failing on a reported store failure, probes until a write works, then is ok and tells its listeners once', async () => {
    const store = new FaultyStore(createStore({ driver: 'memory' }), { base: '/home/someone/.operator/state' });
    const lines: string[] = [];
    const health = new StoreHealth({ store, now: () => 1_700_000_000_000, log: (line) => lines.push(line) });
    const recovered: string[] = [];
    health.onRecovered(() => recovered.push('first'));
    const remove = health.onRecovered(() => recovered.push('removed'));
    remove();
    expect(health.state).toEqual({ state: 'ok' });

    // A turn's own error says nothing about the store.
    health.reportFailure(new Error('the model refused'), 'telegram:dm:42: turn');
    expect(health.state.state).toBe('ok');

    store.fail('ENOSPC');
    health.reportFailure(await failureOf(store.append('journal:inbox:1', 'x')), 'telegram:dm:42: message not taken');
    expect(health.state).toMatchObject({ state: 'failing', code: 'ENOSPC', operation: 'append', what: 'telegram:dm:42: message not taken', since: 1_700_000_000_000, failures: 1 });
    expect(lines).toEqual([expect.stringMatching(/^operator: the store is failing \(ENOSPC, telegram:dm:42: message not taken\): store append of "journal:inbox:1" failed: ENOSPC/)]);
    const summary = health.summary();
    expect(summary.store).toEqual({ state: 'failing', error: { code: 'ENOSPC', operation: 'append' }, since: '2023-11-14T22:13:20.000Z' });
    expect(JSON.stringify(summary)).not.toMatch(/someone|telegram:dm/);

    expect(await health.probe()).toBe(false);
    expect(health.state).toMatchObject({ state: 'failing', code: 'ENOSPC', what: 'health probe', failures: 2, since: 1_700_000_000_000 });
    store.fail('EROFS');
    expect(await health.probe()).toBe(false);
    expect(lines.at(-1)).toMatch(/still failing, now with EROFS/);

    store.heal();
    expect(await health.probe()).toBe(true);
    expect(health.state).toEqual({ state: 'ok' });
    expect(await health.probe()).toBe(true);
    await vi.waitFor(() => expect(recovered).toEqual(['first']));
    expect(lines.at(-1)).toMatch(/^operator: the store works again \(it failed for 0 s, 3 failures, last EROFS\)/);
    // The probe's own keys are cleaned up: only its value stays.
    expect(await store.readLog('health:probe-log')).toEqual([]);
    health.stop();
  });

  it('probes by itself every probeIntervalMs while failing, and every checkIntervalMs while ok once started', async () => {
    vi.useFakeTimers();
    const store = new FaultyStore(createStore({ driver: 'memory' }));
    const health = new StoreHealth({ store, probeIntervalMs: 2_000, checkIntervalMs: 30_000, log: () => undefined });
    let recoveries = 0;
    health.onRecovered(() => void recoveries++);

    store.fail('EROFS');
    health.reportFailure(await failureOf(store.set('a', 1)), 'write');
    // Failures reported one after another do not put the probe off.
    await vi.advanceTimersByTimeAsync(1_500);
    health.reportFailure(await failureOf(store.set('a', 1)), 'write');
    await vi.advanceTimersByTimeAsync(600);
    expect(store.failures.filter((failure) => failure.startsWith('set health:probe'))).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(store.failures.filter((failure) => failure.startsWith('set health:probe'))).toHaveLength(2);

    store.heal();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(health.state.state).toBe('ok');
    expect(recoveries).toBe(1);
    // Not started: no probing while ok.
    expect(vi.getTimerCount()).toBe(0);

    // Started: the disk goes read-only while nobody writes, and the check finds it.
    health.start();
    store.fail('EROFS');
    await vi.advanceTimersByTimeAsync(30_000);
    expect(health.state).toMatchObject({ state: 'failing', code: 'EROFS', what: 'health probe' });
    store.heal();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(health.state.state).toBe('ok');
    expect(recoveries).toBe(2);
    expect(vi.getTimerCount()).toBe(1);

    health.stop();
    expect(vi.getTimerCount()).toBe(0);
    store.fail('EROFS');
    health.reportFailure(await failureOf(store.set('a', 1)), 'write');
    expect(vi.getTimerCount()).toBe(0);
  });

  it('keeps one listener\'s failure from the others', async () => {
    const store = new FaultyStore(createStore({ driver: 'memory' }));
    const lines: string[] = [];
    const health = new StoreHealth({ store, log: (line) => lines.push(line) });
    const called: string[] = [];
    health.onRecovered(() => {
      throw new Error('resume failed');
    });
    health.onRecovered(async () => void called.push('second'));
    store.fail('EIO');
    expect(await health.probe()).toBe(false);
    store.heal();
    expect(await health.probe()).toBe(true);
    await vi.waitFor(() => expect(called).toEqual(['second']));
    await vi.waitFor(() => expect(lines.at(-1)).toBe('operator: after the store recovered: resume failed'));
    health.stop();
  });

  it('keeps journal damage reports (the oldest dropped when there are too many) and lists them without content', () => {
    const health = new StoreHealth({ store: createStore({ driver: 'memory' }), maxDamageReports: 2, log: () => undefined });
    health.reportDamage(damage({ journal: 'dedupe' }));
    health.reportDamage(damage({ journal: 'inbox', kind: 'torn-tail', damagedRecords: 1, tornTail: true, keptRecords: 4, keysUnknown: false, error: undefined }));
    health.reportDamage(damage({ journal: 'ledger', movedTo: undefined, repairError: 'EROFS: store moveLog of "journal:ledger:1" failed' }));
    expect(health.damage.map((report) => report.journal)).toEqual(['inbox', 'ledger']);
    expect(health.summary().journals).toEqual([
      { journal: 'inbox', segment: 'journal:inbox:472222', kind: 'torn-tail', damagedRecords: 1, keptRecords: 4, recordsLost: false, foundAt: '2023-11-14T22:13:20.000Z', movedTo: 'journal-damaged:inbox:472222:1700000000000', repairFailed: false },
      { journal: 'ledger', segment: 'journal:inbox:472222', kind: 'unreadable', damagedRecords: 0, keptRecords: 0, recordsLost: true, foundAt: '2023-11-14T22:13:20.000Z', error: 'EIO', repairFailed: true },
    ]);
  });

  describe('on a real disk', () => {
    let disk: SmallDisk | undefined;
    afterEach(async () => {
      await disk?.remove();
      disk = undefined;
    });

    it('finds a full disk and finds it writable again once there is room', async () => {
      disk = await mountSmallDisk({ sizeBytes: 1024 * 1024 });
      const store = createStore({ driver: 'fs', base: join(disk.home, 'state') });
      const health = new StoreHealth({ store, log: () => undefined });
      let recovered = false;
      health.onRecovered(() => (recovered = true));
      expect(await health.probe()).toBe(true);
      await disk.fill();
      expect(await health.probe()).toBe(false);
      expect(health.state).toMatchObject({ state: 'failing', code: 'ENOSPC' });
      await disk.free();
      expect(await health.probe()).toBe(true);
      await vi.waitFor(() => expect(recovered).toBe(true));
      health.stop();
      await store.close();
    });
  });
});

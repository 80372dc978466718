import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDeliveryLedger, type NewLedgerEntry } from '../../src/gateway/ledger/index.ts';
import { createStore, type Store } from '../../src/store/index.ts';
import { findRedisServer, startRedisServer, type RedisTestServer } from '../store/redis-server.ts';

const start = Date.UTC(2026, 0, 1);

function clock() {
  let now = start;
  return { now: () => now, advance: (ms: number) => (now += ms) };
}

function reply(text: string, turnId: string, sessionKey = 'telegram:dm:42'): NewLedgerEntry {
  return { sessionKey, address: { platform: 'telegram', conversationId: sessionKey.split(':')[2]! }, text, turnId };
}

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

describe('delivery ledger', () => {
  it('records a reply as pending, and forgets it once delivered', async () => {
    const time = clock();
    const ledger = createDeliveryLedger(createStore({ driver: 'memory', now: time.now }), { now: time.now });
    const id = await ledger.record({ ...reply('Hello', 'u1#0'), replyTo: '77' });
    expect(await ledger.get(id)).toEqual({
      id,
      sessionKey: 'telegram:dm:42',
      address: { platform: 'telegram', conversationId: '42' },
      text: 'Hello',
      replyTo: '77',
      turnId: 'u1#0',
      status: 'pending',
      createdAt: start,
      updatedAt: start,
      attempts: 0,
    });
    expect((await ledger.pending()).map((entry) => entry.id)).toEqual([id]);
    time.advance(1_000);
    await ledger.markDelivered(id, ['100', '101']);
    expect(await ledger.get(id)).toBeNull();
    expect(await ledger.pending()).toEqual([]);
  });

  it('lists pending entries oldest first', async () => {
    const time = clock();
    const ledger = createDeliveryLedger(createStore({ driver: 'memory', now: time.now }), { now: time.now });
    const ids: string[] = [];
    for (let index = 0; index < 12; index++) {
      ids.push(await ledger.record(reply(`reply ${index}`, `u${index}#0`)));
      // Several in the same millisecond, then time moves on.
      if (index % 4 === 3) time.advance(10);
    }
    await ledger.markDelivered(ids[5]!, ['x']);
    await ledger.markFailed(ids[7]!, 'chat not found', { final: true });
    expect((await ledger.pending()).map((entry) => entry.text)).toEqual(
      [0, 1, 2, 3, 4, 6, 8, 9, 10, 11].map((index) => `reply ${index}`),
    );
  });

  it('counts failed attempts and keeps final failures for /status', async () => {
    const time = clock();
    const ledger = createDeliveryLedger(createStore({ driver: 'memory', now: time.now }), { now: time.now });
    const first = await ledger.record(reply('one', 'a#0'));
    const second = await ledger.record(reply('two', 'b#0', 'telegram:dm:7'));
    await ledger.markFailed(first, '429 Too Many Requests', { final: false });
    expect(await ledger.get(first)).toMatchObject({ status: 'pending', attempts: 1, error: '429 Too Many Requests' });
    expect((await ledger.pending()).map((entry) => entry.id)).toEqual([first, second]);
    expect(await ledger.recentFailures()).toEqual([]);

    time.advance(1);
    await ledger.markFailed(first, 'Forbidden: bot was blocked by the user', { final: true });
    await ledger.markFailed(second, 'x'.repeat(2_000), { final: true });
    expect(await ledger.get(first)).toMatchObject({ status: 'failed', attempts: 2, error: 'Forbidden: bot was blocked by the user' });
    expect((await ledger.get(second))!.error).toHaveLength(500);
    expect(await ledger.pending()).toEqual([]);
    expect((await ledger.recentFailures()).map((entry) => entry.id)).toEqual([first, second]);
    expect((await ledger.recentFailures('telegram:dm:7')).map((entry) => entry.id)).toEqual([second]);
    expect((await ledger.recentFailures(undefined, 1)).map((entry) => entry.id)).toEqual([second]);
    expect(await ledger.recentFailures('telegram:dm:1')).toEqual([]);
  });

  it('keeps no [SILENT] reply, and never returns one as pending', async () => {
    const ledger = createDeliveryLedger(createStore({ driver: 'memory' }));
    const silent = await ledger.record(reply('[SILENT]', 's#0'));
    const padded = await ledger.record(reply('  [SILENT]\n', 's#1'));
    const spoken = await ledger.record(reply('[SILENT] but not quite', 's#2'));
    expect(await ledger.get(silent)).toBeNull();
    expect(await ledger.get(padded)).toBeNull();
    expect((await ledger.pending()).map((entry) => entry.id)).toEqual([spoken]);
    expect(await ledger.claim(silent)).toBe(false);
  });

  it('records one entry per turn id', async () => {
    const ledger = createDeliveryLedger(createStore({ driver: 'memory' }));
    const [first, second] = await Promise.all([ledger.record(reply('hi', 't#0')), ledger.record(reply('hi', 't#0'))]);
    expect(second).toBe(first);
    expect(await ledger.pending()).toHaveLength(1);
    expect(await ledger.record(reply('hi', 't#1'))).not.toBe(first);
  });

  it('lets exactly one of many concurrent senders claim an entry', async () => {
    const store = createStore({ driver: 'memory' });
    const ledgers = [createDeliveryLedger(store), createDeliveryLedger(store)];
    const id = await ledgers[0]!.record(reply('once', 'c#0'));
    const claims = await Promise.all(Array.from({ length: 40 }, (_, index) => ledgers[index % 2]!.claim(id)));
    expect(claims.filter(Boolean)).toHaveLength(1);
  });

  it('refuses claims of delivered entries, and frees an abandoned claim after its TTL', async () => {
    const time = clock();
    const store = createStore({ driver: 'memory', now: time.now });
    const ledger = createDeliveryLedger(store, { now: time.now, claimTtlSeconds: 60 });
    const abandoned = await ledger.record(reply('a', 'x#0'));
    const delivered = await ledger.record(reply('b', 'x#1'));
    await ledger.markDelivered(delivered, ['9']);
    expect(await ledger.claim(delivered)).toBe(false);
    expect(await ledger.claim(abandoned)).toBe(true);
    time.advance(59_000);
    expect(await ledger.claim(abandoned)).toBe(false);
    time.advance(2_000);
    expect(await ledger.claim(abandoned)).toBe(true);
  });

  it('survives a restart: what was not delivered is sent once after reopening the store', async () => {
    const base = mkdtempSync(join(tmpdir(), 'operator-ledger-'));
    folders.push(base);
    const before = createStore({ driver: 'fs', base });
    const ledger = createDeliveryLedger(before);
    const delivered = await ledger.record(reply('delivered', 'r#0'));
    await ledger.markDelivered(delivered, ['1']);
    const lost = await ledger.record(reply('lost in the crash', 'r#1'));
    const failed = await ledger.record(reply('failed', 'r#2'));
    await ledger.markFailed(failed, 'chat not found', { final: true });
    await before.close();

    const sent: string[] = [];
    for (let restart = 0; restart < 2; restart++) {
      const store = createStore({ driver: 'fs', base });
      const reopened = createDeliveryLedger(store);
      // Two senders in the restarted process race for the same entries.
      await Promise.all(
        [0, 1].map(async () => {
          for (const entry of await reopened.pending()) {
            if (!(await reopened.claim(entry.id))) continue;
            sent.push(entry.text);
            await reopened.markDelivered(entry.id, ['2']);
          }
        }),
      );
      expect(await reopened.get(lost)).toBeNull();
      expect((await reopened.recentFailures()).map((entry) => entry.id)).toEqual([failed]);
      await store.close();
    }
    expect(sent).toEqual(['lost in the crash']);
  });

  it('drops an open key of an earlier version that a crash left without its entry', async () => {
    const store = createStore({ driver: 'memory' });
    const ledger = createDeliveryLedger(store);
    await store.set('ledger:open:0000000000-0000-000000', start);
    expect(await ledger.pending()).toEqual([]);
    expect(await store.list('ledger:open:')).toEqual([]);
  });

  it('forgets entries after the retention period', async () => {
    const time = clock();
    const ledger = createDeliveryLedger(createStore({ driver: 'memory', now: time.now }), { now: time.now, retentionDays: 2 });
    const id = await ledger.record(reply('old', 'o#0'));
    await ledger.markFailed(id, 'gone', { final: true });
    time.advance(2 * 86_400_000 + 1);
    expect(await ledger.get(id)).toBeNull();
    expect(await ledger.pending()).toEqual([]);
    expect(await ledger.recentFailures()).toEqual([]);
  });

  it('refuses to mark an unknown entry', async () => {
    const ledger = createDeliveryLedger(createStore({ driver: 'memory' }));
    await expect(ledger.markDelivered('nope', [])).rejects.toThrow('Unknown delivery ledger entry nope');
  });
});

/** `store` with every operation reported to `onOperation` first, which may throw to simulate a crash there. */
function instrumented(store: Store, onOperation: (operation: string, key: string) => void): Store {
  return {
    get: (key) => (onOperation('get', key), store.get(key)),
    set: async (key, value, options) => (onOperation('set', key), store.set(key, value, options)),
    setIfAbsent: async (key, value, options) => (onOperation('setIfAbsent', key), store.setIfAbsent(key, value, options)),
    delete: async (key) => (onOperation('delete', key), store.delete(key)),
    list: async (prefix) => (onOperation('list', prefix), store.list(prefix)),
    append: async (key, record) => (onOperation('append', key), store.append(key, record)),
    readLog: async (key) => (onOperation('readLog', key), store.readLog(key)),
    deleteLog: async (key) => (onOperation('deleteLog', key), store.deleteLog(key)),
    moveLog: async (from, to) => (onOperation('moveLog', from), store.moveLog(from, to)),
    withLock: (key, fn) => store.withLock(key, fn),
    close: () => store.close(),
  };
}

/** Counts reads and writes (deletes included) of `store`. */
function counted(store: Store): { store: Store; take: () => { reads: number; writes: number } } {
  let reads = 0;
  let writes = 0;
  const wrapped = instrumented(store, (operation) => {
    if (operation === 'get' || operation === 'list' || operation === 'readLog' || operation === 'setIfAbsent') reads++;
    if (operation !== 'get' && operation !== 'list' && operation !== 'readLog') writes++;
  });
  return {
    store: wrapped,
    take: () => {
      const counts = { reads, writes };
      reads = writes = 0;
      return counts;
    },
  };
}

describe('delivery ledger store operations', () => {
  it('records a reply and marks it delivered with one appended record each, reading nothing', async () => {
    const { store, take } = counted(createStore({ driver: 'memory' }));
    const ledger = createDeliveryLedger(store);
    // The first use reads the journal (and looks for entries of earlier versions) once.
    expect(await ledger.pending()).toEqual([]);
    take();
    const id = await ledger.record(reply('Hello', 'ops#0'));
    expect(take()).toEqual({ reads: 0, writes: 1 });
    await ledger.markDelivered(id, ['1']);
    expect(take()).toEqual({ reads: 0, writes: 1 });

    // A [SILENT] reply costs nothing: there is nothing to deliver.
    await ledger.record(reply('[SILENT]', 'ops#1'));
    expect(take()).toEqual({ reads: 0, writes: 0 });
  });

  it('keeps the inbox keys a pending reply answers, and nothing of it once delivered', async () => {
    const ledger = createDeliveryLedger(createStore({ driver: 'memory' }));
    const id = await ledger.record({ ...reply('the reply', 'k#0'), replyTo: '9', answers: ['telegram%3Au1', 'telegram%3Au2'] });
    expect((await ledger.pending())[0]).toMatchObject({ text: 'the reply', answers: ['telegram%3Au1', 'telegram%3Au2'] });
    await ledger.markDelivered(id, ['5']);
    expect(await ledger.get(id)).toBeNull();
    expect(await ledger.pending()).toEqual([]);
  });

  it('keeps the id of the streamed preview with the entry, for a resend after a restart', async () => {
    const ledger = createDeliveryLedger(createStore({ driver: 'memory' }));
    const streamed = await ledger.record({ ...reply('final text', 'p#0'), previewId: '555' });
    const plain = await ledger.record(reply('no preview', 'p#1'));
    expect(await ledger.pending()).toEqual([
      expect.objectContaining({ id: streamed, previewId: '555' }),
      expect.not.objectContaining({ previewId: expect.anything() }),
    ]);
    expect((await ledger.get(plain))!.previewId).toBeUndefined();
  });

  it('keeps a reply\'s files and what of it arrived, through a restart, until it is delivered', async () => {
    const base = mkdtempSync(join(tmpdir(), 'operator-ledger-'));
    folders.push(base);
    const file = { path: '/outbox/ab/report.pdf', name: 'report.pdf', mediaType: 'application/pdf', size: 1200 };
    const first = createDeliveryLedger(createStore({ driver: 'fs', base }));
    const id = await first.record({ ...reply('Here it is.', 'f#0'), files: [file, { ...file, name: 'b.pdf' }] });
    await first.markProgress(id, { text: ['10'], files: ['11'] });
    const restarted = createDeliveryLedger(createStore({ driver: 'fs', base }));
    expect(await restarted.pending()).toEqual([expect.objectContaining({ id, files: [file, { ...file, name: 'b.pdf' }], sent: { text: ['10'], files: ['11'] }, status: 'pending' })]);
    await restarted.markDelivered(id, ['10', '11', '12']);
    expect(await restarted.pending()).toEqual([]);
    await expect(restarted.markProgress(id, { text: [], files: [] })).rejects.toThrow(/Unknown delivery ledger entry/);
  });

  it('records no files key for a reply without files', async () => {
    const ledger = createDeliveryLedger(createStore({ driver: 'memory' }));
    const id = await ledger.record({ ...reply('plain', 'n#0'), files: [] });
    expect(await ledger.get(id)).not.toHaveProperty('files');
  });
});

const redisBinary = findRedisServer();
let redis: RedisTestServer | undefined;
beforeAll(async () => {
  if (redisBinary) redis = await startRedisServer(redisBinary);
});
afterAll(async () => {
  await redis?.stop();
});

const backends: { name: string; open: () => Store }[] = [
  { name: 'memory', open: () => createStore({ driver: 'memory' }) },
  {
    name: 'fs',
    open: () => {
      const base = mkdtempSync(join(tmpdir(), 'operator-ledger-'));
      folders.push(base);
      return createStore({ driver: 'fs', base });
    },
  },
  { name: 'redis', open: () => createStore({ driver: 'redis', url: redis!.url, base: `ledger-${randomUUID()}` }) },
];

describe.each(backends)('delivery ledger on $name', ({ name, open }) => {
  let store: Store;
  beforeEach((context) => {
    if (name === 'redis' && !redisBinary) {
      if (process.env.CI) throw new Error('redis-server is not on PATH: CI must install it');
      context.skip();
    }
    store = open();
  });
  afterEach(async () => {
    await store?.close();
  });

  it('keeps one entry when a pending turn is recorded again', async () => {
    const ledger = createDeliveryLedger(store);
    const first = await ledger.record(reply('hi', 'again#0'));
    expect(await ledger.record(reply('hi again', 'again#0'))).toBe(first);
    expect((await ledger.pending()).map((entry) => entry.text)).toEqual(['hi again']);
    expect((await createDeliveryLedger(store).pending()).map((entry) => entry.text)).toEqual(['hi again']);
    // A pending turn answered again with [SILENT] leaves nothing to send.
    const quiet = await ledger.record(reply('something', 'again#1'));
    await ledger.record(reply('[SILENT]', 'again#1'));
    expect(await ledger.get(quiet)).toBeNull();
    expect((await createDeliveryLedger(store).pending()).map((entry) => entry.id)).toEqual([first]);
  });

  it('keeps a reply pending when a crash cuts short the mark of its delivery (never lost; sent once more at most)', async () => {
    let appends = 0;
    const crashing = instrumented(store, (operation, key) => {
      if (operation === 'append' && key.startsWith('journal:ledger:') && ++appends === 2) throw new Error('crash');
    });
    const before = createDeliveryLedger(crashing);
    const id = await before.record(reply('sent once', 'crash#0'));
    await expect(before.markDelivered(id, ['7'])).rejects.toThrow('crash');

    const after = createDeliveryLedger(store);
    expect((await after.pending()).map((entry) => entry.text)).toEqual(['sent once']);
    expect(await after.claim(id)).toBe(true);
    await after.markDelivered(id, ['7']);
    expect(await createDeliveryLedger(store).pending()).toEqual([]);
  });

  it('retries after a restart a reply whose final failure a crash cut short, without listing it as failed', async () => {
    let appends = 0;
    const crashing = instrumented(store, (operation, key) => {
      if (operation === 'append' && key.startsWith('journal:ledger:') && ++appends === 2) throw new Error('crash');
    });
    const before = createDeliveryLedger(crashing);
    // The record is the first append; the failure is listed, then (crashing) the entry settles.
    const id = await before.record(reply('not given up yet', 'fail#0'));
    await expect(before.markFailed(id, 'chat not found', { final: true })).rejects.toThrow('crash');

    const after = createDeliveryLedger(store);
    expect((await after.pending()).map((entry) => entry.id)).toEqual([id]);
    expect(await after.recentFailures()).toEqual([]);
    await after.markFailed(id, 'chat not found', { final: true });
    expect(await after.pending()).toEqual([]);
    expect((await after.recentFailures()).map((entry) => entry.id)).toEqual([id]);
  });

  it('sends and marks replies left pending by the earlier layout', async () => {
    const retention = { ttlSeconds: 7 * 86_400 };
    const now = Date.now();
    const legacy = (id: string, text: string, status: string, createdAt: number) => ({
      ...reply(text, `${id}#0`),
      id,
      status,
      createdAt,
      updatedAt: createdAt,
      attempts: 0,
    });
    // What the earlier version wrote: the creation time under the open key, the entry in every
    // state under the entry key, and the turn's id under `ledger:turn:`.
    const pendingId = '0mi9x2k1c-0003-9f2a1b';
    const failingId = '0mi9x2k1d-0004-000001';
    const deliveredId = '0mi9x2k1e-0005-000002';
    for (const [id, text, status] of [
      [pendingId, 'left pending', 'pending'],
      [failingId, 'will fail', 'pending'],
      [deliveredId, 'delivered, crashed before the open key went', 'delivered'],
    ] as const) {
      await store.set(`ledger:open:${id}`, now - 1_000, retention);
      await store.set(`ledger:entry:${id}`, legacy(id, text, status, now - 1_000), retention);
      await store.set(`ledger:turn:${id}%230`, id, retention);
    }

    const ledger = createDeliveryLedger(store);
    const fresh = await ledger.record(reply('new layout', 'new#0'));
    expect((await ledger.pending()).map((entry) => entry.text)).toEqual(['left pending', 'will fail', 'new layout']);
    expect(await ledger.claim(pendingId)).toBe(true);
    await ledger.markFailed(pendingId, 'timeout', { final: false });
    expect(await ledger.get(pendingId)).toMatchObject({ status: 'pending', attempts: 1 });
    await ledger.markDelivered(pendingId, ['11']);
    await ledger.markFailed(failingId, 'blocked', { final: true });
    await ledger.markDelivered(fresh, ['12']);

    expect(await ledger.pending()).toEqual([]);
    expect(await store.list('ledger:open:')).toEqual([]);
    expect(await store.list('ledger:turn:')).toEqual([]);
    expect(await ledger.get(pendingId)).toBeNull();
    expect((await ledger.recentFailures()).map((entry) => entry.id)).toEqual([failingId]);
    // Moved for good: a restarted ledger finds them in the journal, settled.
    const restarted = createDeliveryLedger(store);
    expect(await restarted.pending()).toEqual([]);
    expect(await restarted.get(failingId)).toMatchObject({ status: 'failed', error: 'blocked' });
  });
});

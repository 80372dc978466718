/**
 * Store failures surface as `StoreError`s with the errno code: on a real full disk and a real
 * read-only one (a small tmpfs, see test/helpers/small-disk.ts), on a folder where a file should
 * be, and with Redis gone.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/unstorage-store.ts';
import { isStoreFailure, isStoreUnreachable, StoreError, toStoreError } from '../../src/store/store-error.ts';
import { mountSmallDisk, type SmallDisk } from '../helpers/small-disk.ts';
import { makeTempDir } from '../helpers/temp-dir.ts';
import { whenInstalled } from '../helpers/needs-program.ts';
import { findRedisServer, startRedisServer } from './redis-server.ts';

/** The error `promise` rejects with. */
async function failure(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected the operation to fail');
}

describe('store errors on the filesystem', () => {
  let disk: SmallDisk | undefined;
  afterEach(async () => {
    await disk?.remove();
    disk = undefined;
  });

  it('throws StoreError ENOSPC on a full disk, leaves no torn record, and works again once there is room', async () => {
    disk = await mountSmallDisk({ sizeBytes: 1024 * 1024 });
    const base = join(disk.home, 'state');
    const store = createStore({ driver: 'fs', base });
    await store.set('values:before', { ok: true });
    await store.append('journal:test:1', '{"n":1}');
    await disk.fill();

    const record = JSON.stringify({ n: 2, text: 'x'.repeat(8_000) });
    const appended = await failure(store.append('journal:test:1', record));
    expect(appended).toBeInstanceOf(StoreError);
    expect(appended).toMatchObject({ code: 'ENOSPC', operation: 'append', key: 'journal:test:1' });
    expect(isStoreFailure(appended)).toBe(true);
    expect(isStoreUnreachable(appended)).toBe(false);
    expect(String((appended as Error).message)).toMatch(/^store append of "journal:test:1" failed: ENOSPC \(ENOSPC: no space left on device/);

    const set = await failure(store.set('values:new', { text: 'y'.repeat(8_000) }));
    expect(set).toMatchObject({ name: 'StoreError', code: 'ENOSPC', operation: 'set' });
    // What was there is still readable.
    expect(await store.get('values:before')).toEqual({ ok: true });

    await disk.free();
    await store.append('journal:test:1', '{"n":3}');
    expect(await store.readLog('journal:test:1')).toEqual(['{"n":1}', '{"n":3}']);
    expect(readFileSync(join(base, 'journal', 'test', '1'), 'utf8')).toBe('{"n":1}\n{"n":3}\n');
    await store.close();
  });

  it('throws StoreError EROFS on a read-only disk, for values, logs and moves, and works again once writable', async () => {
    disk = await mountSmallDisk();
    const base = join(disk.home, 'state');
    mkdirSync(base);
    const store = createStore({ driver: 'fs', base });
    await store.set('values:a', 1);
    await store.append('journal:test:1', 'r1');
    await store.close();
    await disk.readOnly();

    const reopened = createStore({ driver: 'fs', base });
    expect(await reopened.get('values:a')).toBe(1);
    expect(await reopened.readLog('journal:test:1')).toEqual(['r1']);
    for (const [operation, run] of [
      ['set', () => reopened.set('values:b', 2)],
      // In new folders: Node's recursive mkdir would say ENOENT.
      ['set', () => reopened.set('new:folder:c', 3)],
      ['append', () => reopened.append('journal:test:1', 'r2')],
      ['append', () => reopened.append('journal:new:1', 'r1')],
      ['moveLog', () => reopened.moveLog('journal:test:1', 'journal-damaged:test:1:1')],
      ['deleteLog', () => reopened.deleteLog('journal:test:1')],
    ] as const) {
      const error = await failure(run());
      expect(error, operation).toMatchObject({ name: 'StoreError', code: 'EROFS', operation });
      expect(isStoreFailure(error)).toBe(true);
    }

    await disk.writable();
    await reopened.append('journal:test:1', 'r3');
    expect(await reopened.readLog('journal:test:1')).toEqual(['r1', 'r3']);
    await reopened.close();
  });

  it('wraps the error of a file where a folder should be, which is no store failure (nothing to wait for)', async () => {
    const base = await makeTempDir('operator-store-errors-');
    writeFileSync(join(base, 'jobs'), 'a file where the folder was');
    const store = createStore({ driver: 'fs', base });
    const error = await failure(store.append('jobs:a', 'lost'));
    expect(error).toMatchObject({ name: 'StoreError', code: 'ENOTDIR', operation: 'append', key: 'jobs:a' });
    expect(isStoreFailure(error)).toBe(false);
    await store.close();
  });

  it('moves a folder standing where a log should be', async () => {
    const base = await makeTempDir('operator-store-errors-');
    mkdirSync(join(base, 'journal', 'test', '7'), { recursive: true });
    writeFileSync(join(base, 'journal', 'test', '7', 'stray'), 'x');
    const store = createStore({ driver: 'fs', base });
    await expect(store.readLog('journal:test:7')).rejects.toMatchObject({ name: 'StoreError', code: 'EISDIR', operation: 'readLog' });
    await store.moveLog('journal:test:7', 'journal-damaged:test:7:1');
    expect(readFileSync(join(base, 'journal-damaged', 'test', '7', '1', 'stray'), 'utf8')).toBe('x');
    await store.append('journal:test:7', 'works');
    expect(await store.readLog('journal:test:7')).toEqual(['works']);
    await store.close();
  });

  it('passes a caller\'s mistake through as it is', async () => {
    const store = createStore({ driver: 'memory' });
    await expect(store.set('a/b', 1)).rejects.toThrow(TypeError);
    await expect(store.set('a', 1, { ttlSeconds: -1 })).rejects.toThrow(RangeError);
    await expect(store.withLock('a', async () => { throw new Error('mine'); })).rejects.toThrow(/^mine$/);
  });

  it('keeps credentials out of the message', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED redis://admin:hunter2@db.example:6379/?password=hunter2'), { code: 'ECONNREFUSED' });
    const error = toStoreError(cause, 'get', 'sessions:a') as StoreError;
    expect(error.code).toBe('ECONNREFUSED');
    expect(error.message).not.toContain('hunter2');
    expect(error.cause).toBe(cause);
    expect(isStoreUnreachable(error)).toBe(true);
  });
});

const needed = { suite: 'store errors: redis', program: 'redis-server on PATH', install: 'apt-get install -y redis-server', runs: 'the Redis store failure test' };

whenInstalled(findRedisServer(), needed, (binary) => {
  it(
    'throws StoreError for a Redis server that went away (after the client gave up retrying)',
    async () => {
      const server = await startRedisServer(binary);
      const store = createStore({ driver: 'redis', url: server.url, base: 'errors' });
      try {
        await store.set('a', 1);
        await server.stop();
        const error = await failure(store.set('a', 2));
        expect(error).toBeInstanceOf(StoreError);
        expect(['EUNAVAILABLE', 'ECONNREFUSED', 'ECONNRESET']).toContain((error as StoreError).code);
        expect(isStoreFailure(error)).toBe(true);
        expect(isStoreUnreachable(error)).toBe(true);
      } finally {
        await store.close().catch(() => undefined);
        await server.stop();
      }
    },
    60_000,
  );
});

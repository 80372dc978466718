import { mkdtemp, readFile, rm, appendFile, stat } from 'node:fs/promises';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStorage } from 'unstorage';
import fsLiteDriver from 'unstorage/drivers/fs-lite';
import { createStore } from '../../src/store/unstorage-store.ts';
import type { Store } from '../../src/store/store.ts';
import { describeStoreContract } from './store-contract.ts';
import { canCountOpenFiles, openFilesUnder } from './open-files.ts';

const folders: string[] = [];
async function tempFolder(): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'operator-store-'));
  folders.push(folder);
  return folder;
}
afterAll(async () => {
  await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
});

describeStoreContract('fs', async ({ now }) => createStore({ driver: 'fs', base: await tempFolder(), now }));

describe('fs store files', () => {
  let base: string;
  let store: Store;
  beforeEach(async () => {
    base = await tempFolder();
    store = createStore({ driver: 'fs', base });
  });
  afterEach(async () => {
    await store.close();
  });

  it('keeps a value in the file named by its key segments', async () => {
    await store.set('pairing:abc', { user: 1 });
    expect(existsSync(join(base, 'pairing', 'abc'))).toBe(true);
  });

  it('keeps a log in the file unstorage uses for the key, one line per record', async () => {
    await store.append('sessions:s1', '{"a":1}');
    await store.append('sessions:s1', '{"b":2}');
    expect(await readFile(join(base, 'sessions', 's1'), 'utf8')).toBe('{"a":1}\n{"b":2}\n');
    const storage = createStorage({ driver: fsLiteDriver({ base }) });
    expect(String(await storage.getItemRaw('sessions:s1'))).toBe('{"a":1}\n{"b":2}\n');
  });

  it('grows the file by exactly one record and newline per append, however long the log', async () => {
    const path = join(base, 'sessions', 'grow');
    const record = JSON.stringify({ type: 'message', text: 'x'.repeat(100) });
    const growth: number[] = [];
    for (let index = 0; index < 1_000; index++) {
      const before = existsSync(path) ? (await stat(path)).size : 0;
      await store.append('sessions:grow', record);
      if (index === 10 || index === 999) growth.push((await stat(path)).size - before);
    }
    expect(growth).toEqual([record.length + 1, record.length + 1]);
  });

  it('returns a torn last line as is and starts the next append on a fresh line', async () => {
    await store.append('sessions:torn', '{"n":1}');
    await store.append('sessions:torn', '{"n":2}');
    await appendFile(join(base, 'sessions', 'torn'), '{"n":3,"te');
    expect(await store.readLog('sessions:torn')).toEqual(['{"n":1}', '{"n":2}', '{"n":3,"te']);
    await store.append('sessions:torn', '{"n":4}');
    expect(await store.readLog('sessions:torn')).toEqual(['{"n":1}', '{"n":2}', '{"n":3,"te', '{"n":4}']);
  });

  it('reads a value written torn as absent', async () => {
    await store.set('values:torn', { long: 'value' });
    const path = join(base, 'values', 'torn');
    const text = await readFile(path, 'utf8');
    await rm(path);
    await appendFile(path, text.slice(0, 8));
    expect(await store.get('values:torn')).toBeNull();
  });

  it('lists from the folder a prefix names', async () => {
    await store.set('a:b:c', 1);
    await store.set('a:bc', 2);
    await store.set('z', 3);
    expect(await store.list('a:b')).toEqual(['a:b:c', 'a:bc']);
    expect(await store.list('a:b:')).toEqual(['a:b:c']);
    expect(await store.list('')).toEqual(['a:b:c', 'a:bc', 'z']);
  });

  describe('open log files', () => {
    it('reads back many appends to one log in order', async () => {
      const records = Array.from({ length: 500 }, (_, index) => JSON.stringify({ index }));
      for (const record of records) await store.append('sessions:many', record);
      expect(await store.readLog('sessions:many')).toEqual(records);
    });

    it('sees a record in a read right after its append', async () => {
      for (let index = 0; index < 20; index++) {
        await store.append('sessions:read-after', `record ${index}`);
        expect((await store.readLog('sessions:read-after')).at(-1)).toBe(`record ${index}`);
      }
    });

    it('lands appends to more logs than it keeps open', async () => {
      const keys = Array.from({ length: 300 }, (_, index) => `journals:j${index}`);
      for (let round = 0; round < 2; round++) {
        for (const key of keys) await store.append(key, `${key} ${round}`);
      }
      if (canCountOpenFiles) expect(openFilesUnder(base)).toBeLessThanOrEqual(256);
      for (const key of keys) expect(await store.readLog(key)).toEqual([`${key} 0`, `${key} 1`]);
    });

    it('starts a log deleted with deleteLog afresh, its file closed', async () => {
      await store.append('sessions:again', 'old 1');
      await store.append('sessions:again', 'old 2');
      await store.deleteLog('sessions:again');
      if (canCountOpenFiles) expect(openFilesUnder(base)).toBe(0);
      await store.append('sessions:again', 'new');
      expect(await store.readLog('sessions:again')).toEqual(['new']);
    });

    it('recreates a log file removed from outside while it is open', async () => {
      await store.append('sessions:outside', 'before');
      rmSync(join(base, 'sessions'), { recursive: true });
      await store.append('sessions:outside', 'after');
      expect(await store.readLog('sessions:outside')).toEqual(['after']);
      expect(await readFile(join(base, 'sessions', 'outside'), 'utf8')).toBe('after\n');
    });

    it('appends to a log again after an append failed', async () => {
      await store.append('jobs:a:log', 'first');
      rmSync(join(base, 'jobs', 'a'), { recursive: true });
      writeFileSync(join(base, 'jobs', 'a'), 'a file where the folder was');
      await expect(store.append('jobs:a:log', 'lost')).rejects.toThrow(/ENOTDIR/);
      rmSync(join(base, 'jobs', 'a'));
      await store.append('jobs:a:log', 'second');
      expect(await store.readLog('jobs:a:log')).toEqual(['second']);
    });

    it.runIf(canCountOpenFiles)('leaves no log file open after close', async () => {
      for (let index = 0; index < 20; index++) await store.append(`sessions:s${index}`, 'x');
      expect(openFilesUnder(base)).toBe(20);
      await store.close();
      expect(openFilesUnder(base)).toBe(0);
    });
  });
});

import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createStorage } from 'unstorage';
import fsLiteDriver from 'unstorage/drivers/fs-lite';
import { afterAll, describe, expect, it } from 'vitest';
import { fsSyncDriver } from '../../src/store/fs-sync-driver.ts';
import { createStore } from '../../src/store/unstorage-store.ts';

const folders: string[] = [];
function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'operator-fs-sync-'));
  folders.push(folder);
  return folder;
}
afterAll(() => {
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/** Every file under `folder`, as sorted `/`-separated relative paths. */
function filesUnder(folder: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path);
      else found.push(relative(folder, path).split('\\').join('/'));
    }
  };
  walk(folder);
  return found.sort();
}

/** Keys a store may hold that are awkward as file names (unstorage rewrites `/`, `\` and `?`, the store refuses them). */
const oddKeys = [
  'plain',
  'a:b:c',
  'with space:trailing space ',
  'tab\there',
  'unicode:\u00e9\u4e2d:\ud83d\ude00',
  'percent:telegram%3A42%3A7%230',
  '~hash:~0123abcdef',
  `punct:#&=+,;@!'"*()[]{}<>|^\``,
  '-leading-dash:_under',
  '.dotted:.hidden:..x',
  'mid$dle:x$y',
  'x..y:a.b.',
  'ledger:open:0mi9x2k1c-0003-9f2a1b',
];

describe('fs-sync driver layout', () => {
  it('puts keys with odd characters in the same files as unstorage fs-lite, and each reads the other', async () => {
    const liteBase = tempFolder();
    const syncBase = tempFolder();
    const lite = createStorage({ driver: fsLiteDriver({ base: liteBase }) });
    const sync = createStorage({ driver: fsSyncDriver({ base: syncBase }) });
    for (const key of oddKeys) {
      await lite.setItem(key, { v: `lite ${key}` });
      await sync.setItem(key, { v: `sync ${key}` });
    }

    expect(filesUnder(syncBase)).toEqual(filesUnder(liteBase));
    expect(filesUnder(syncBase)).toContain('a/b/c');
    expect(filesUnder(syncBase)).toHaveLength(oddKeys.length);
    expect((await sync.getKeys('')).sort()).toEqual((await lite.getKeys('')).sort());

    const syncOverLite = createStorage({ driver: fsSyncDriver({ base: liteBase }) });
    const liteOverSync = createStorage({ driver: fsLiteDriver({ base: syncBase }) });
    for (const key of oddKeys) {
      expect(await syncOverLite.getItem(key), key).toEqual({ v: `lite ${key}` });
      expect(await liteOverSync.getItem(key), key).toEqual({ v: `sync ${key}` });
    }
  });

  it('keeps a state folder written through fs-lite readable by the store', async () => {
    const base = tempFolder();
    const lite = createStorage({ driver: fsLiteDriver({ base }) });
    await lite.setItem('pairing:abc', { v: { userId: '42' } });
    await lite.setItem('dedupe:telegram%3A1%3A2', { v: 1, exp: Date.now() + 60_000 });
    const store = createStore({ driver: 'fs', base });
    expect(await store.get('pairing:abc')).toEqual({ userId: '42' });
    expect(await store.setIfAbsent('dedupe:telegram%3A1%3A2', 1)).toBe(false);
    expect(await store.list('')).toEqual(['dedupe:telegram%3A1%3A2', 'pairing:abc']);
    await store.close();
  });

  it('lists like fs-lite under a base and to a depth', async () => {
    const liteBase = tempFolder();
    const syncBase = tempFolder();
    const lite = createStorage({ driver: fsLiteDriver({ base: liteBase }) });
    const sync = createStorage({ driver: fsSyncDriver({ base: syncBase }) });
    for (const key of ['top', 'a:one', 'a:b:two', 'a:b:c:three', 'ab:four']) {
      await lite.setItem(key, 1);
      await sync.setItem(key, 1);
    }
    for (const [base, maxDepth] of [['', undefined], ['', 0], ['', 1], ['a', undefined], ['a', 1], ['a:b', 2], ['a:b:c', 0], ['nothing', undefined]] as const) {
      const options = maxDepth === undefined ? {} : { maxDepth };
      const label = `${base} ${maxDepth}`;
      expect((await sync.getKeys(base, options)).sort(), label).toEqual((await lite.getKeys(base, options)).sort());
    }
    expect((await sync.getKeys('a', { maxDepth: 1 })).sort()).toEqual(['a:one']);
  });

  it('refuses keys that would leave the store folder, writing nothing', () => {
    const parent = tempFolder();
    const base = join(parent, 'state');
    const driver = fsSyncDriver({ base });
    for (const key of ['..:escaped', 'a:..:..:escaped', 'a/../../escaped', '.:x', 'a::b', 'nul\0byte']) {
      expect(() => driver.setItem!(key, '"x"', {}), key).toThrow(TypeError);
      expect(() => driver.getItem(key, {}), key).toThrow(TypeError);
    }
    expect(filesUnder(parent)).toEqual([]);
  });

  it('reads a missing key, a folder and a key below a file as absent', async () => {
    const base = tempFolder();
    const storage = createStorage({ driver: fsSyncDriver({ base }) });
    await storage.setItem('folder:inside', 1);
    await storage.setItem('file', 2);
    for (const key of ['missing', 'folder', 'file:below']) {
      expect(await storage.getItem(key), key).toBeNull();
      expect(await storage.hasItem(key), key).toBe(false);
      await expect(storage.removeItem(key), key).resolves.toBeUndefined();
    }
    expect(await storage.hasItem('file')).toBe(true);
    await expect(storage.setItem('file:below', 3)).rejects.toThrow();
    await expect(storage.setItem('folder', 3)).rejects.toThrow();
    expect(await storage.getItem('file')).toBe(2);
    // The failed writes left no temp files.
    expect(filesUnder(base)).toEqual(['file', 'folder/inside']);
  });

  it('round-trips raw bytes', async () => {
    const storage = createStorage({ driver: fsSyncDriver({ base: tempFolder() }) });
    const bytes = Buffer.from([0, 1, 2, 255, 10, 13]);
    await storage.setItemRaw('raw:bytes', bytes);
    expect(Buffer.compare(Buffer.from((await storage.getItemRaw('raw:bytes')) as Uint8Array), bytes)).toBe(0);
  });

  it('clears one base, or everything but the store folder itself', async () => {
    const base = tempFolder();
    const driver = fsSyncDriver({ base });
    // Called on the driver: unstorage's clear(base) only reaches mounts below `base`.
    const storage = createStorage({ driver });
    for (const key of ['a:1', 'a:b:2', 'ab:3', 'c']) await storage.setItem(key, 1);
    await driver.clear!('a:', {});
    expect(filesUnder(base)).toEqual(['ab/3', 'c']);
    await storage.clear();
    expect(filesUnder(base)).toEqual([]);
    await storage.setItem('again', 1);
    expect(await storage.getKeys('')).toEqual(['again']);
  });
});

describe('fs-sync driver writes', () => {
  it('leaves exactly one file per key and no temp files, however the keys were written', async () => {
    const base = tempFolder();
    const store = createStore({ driver: 'fs', base });
    const expected = new Set<string>();
    for (let index = 0; index < 100; index++) {
      const key = `w:${index % 7}:k${index}`;
      await store.set(key, { index, text: 'x'.repeat(index) });
      expected.add(key.split(':').join('/'));
    }
    await Promise.all(Array.from({ length: 50 }, (_, index) => store.set('w:same', index)));
    await Promise.all(Array.from({ length: 50 }, (_, index) => store.setIfAbsent('w:once', index)));
    await store.set('w:ttl', 'short', { ttlSeconds: 60 });
    await store.delete('w:0:k0');
    expected.delete('w/0/k0');
    for (const key of ['w/same', 'w/once', 'w/ttl']) expected.add(key);

    expect(filesUnder(base)).toEqual([...expected].sort());
    expect(await store.get('w:same')).toBe(49);
    expect(JSON.parse(readFileSync(join(base, 'w', '3', 'k3'), 'utf8'))).toEqual({ v: { index: 3, text: 'xxx' } });
    await store.close();
  });

  it('never lists or reads the temp file of a write cut short by a crash', async () => {
    const base = tempFolder();
    const store = createStore({ driver: 'fs', base });
    await store.set('crash:value', 'before');

    const killedBy = await new Promise<NodeJS.Signals | null>((resolve, reject) => {
      const runTs = fileURLToPath(new URL('../../bin/run-ts.js', import.meta.url));
      const child = spawn(process.execPath, [runTs, fileURLToPath(new URL('./crash-mid-write.ts', import.meta.url)), base, 'crash:value', 'after'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      child.on('error', reject);
      child.on('exit', (code, signal) => (signal === null ? reject(new Error(`child exited with ${code}: ${stderr}`)) : resolve(signal)));
    });
    expect(killedBy).toBe('SIGKILL');

    // The crash left the new value's temp file beside the old value.
    const leftovers = filesUnder(base).filter((file) => file !== 'crash/value');
    expect(leftovers).toHaveLength(1);
    const leftover = leftovers[0]!;
    expect(JSON.parse(readFileSync(join(base, leftover), 'utf8'))).toEqual({ v: 'after' });

    expect(await store.get('crash:value')).toBe('before');
    expect(await store.list('')).toEqual(['crash:value']);
    expect(await store.list('crash:')).toEqual(['crash:value']);
    expect(await createStorage({ driver: fsSyncDriver({ base }) }).getKeys('')).toEqual(['crash:value']);
    await expect(store.get(leftover.split('/').join(':'))).rejects.toThrow(TypeError);

    await store.set('crash:value', 'later');
    expect(await store.get('crash:value')).toBe('later');
    expect(await store.list('crash:')).toEqual(['crash:value']);
    await store.close();
  });

  it('reads torn, empty and foreign content as absent, and lets a write repair it', async () => {
    const base = tempFolder();
    const store = createStore({ driver: 'fs', base });
    mkdirSync(join(base, 'bad'));
    const contents = { torn: '{"v":{"long":"val', empty: '', text: 'not json', list: '[1,2]', other: '{"other":1}' };
    for (const [name, content] of Object.entries(contents)) writeFileSync(join(base, 'bad', name), content);
    for (const name of Object.keys(contents)) {
      expect(await store.get(`bad:${name}`), name).toBeNull();
      expect(await store.setIfAbsent(`bad:${name}`, 'repaired'), name).toBe(true);
      expect(await store.get(`bad:${name}`), name).toBe('repaired');
    }
    await store.close();
  });
});

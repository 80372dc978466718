/**
 * What operator creates under OPERATOR_HOME is the owner's alone (folders 0700, files 0600)
 * whatever the umask leaves: the store's values and logs, atomic writes (tokens, memory, skills),
 * documents saved from a chat, the outbox's copies and the control file.
 */
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../src/core/atomic-write.ts';
import { writeControlFile } from '../../src/gateway/control/control-file.ts';
import { writeNewFile } from '../../src/gateway/files/file-names.ts';
import { Outbox } from '../../src/gateway/files/outbox.ts';
import { createStore } from '../../src/store/unstorage-store.ts';
import { openEntries } from '../helpers/open-entries.ts';

const folders: string[] = [];
function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'operator-modes-'));
  folders.push(folder);
  return folder;
}
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8);

describe('private modes under OPERATOR_HOME', () => {
  it("makes the fs store's folders 0700 and its values and logs 0600, new or replaced", async () => {
    const base = join(tempFolder(), 'home', 'state');
    const store = createStore({ driver: 'fs', base });
    try {
      await store.set('sessions:telegram-dm-1:meta', { title: 'launch plans' });
      await store.set('sessions:telegram-dm-1:meta', { title: 'launch plans, again' });
      await store.setIfAbsent('pairing:codes:ABC', { user: 1 }, { ttlSeconds: 60 });
      await store.append('sessions:telegram-dm-1:log', '{"text":"the launch code"}');
      await store.moveLog('sessions:telegram-dm-1:log', 'damaged:telegram-dm-1:log');
      await store.append('journal:a:b:c', 'one');
    } finally {
      await store.close();
    }
    expect(modeOf(join(base, 'sessions', 'telegram-dm-1', 'meta'))).toBe('600');
    expect(modeOf(join(base, 'damaged', 'telegram-dm-1', 'log'))).toBe('600');
    expect(modeOf(join(base, 'journal', 'a', 'b'))).toBe('700');
    // The folders made on the way to the store (OPERATOR_HOME itself here) too.
    expect(openEntries(join(base, '..'))).toEqual([]);
  });

  it('writes atomic files 0600 in 0700 folders unless a mode is given, and replaces an open file with a private one', async () => {
    const home = tempFolder();
    const memory = join(home, 'profiles', 'team', 'MEMORY.md');
    await writeFileAtomic(memory, 'remember this');
    expect(modeOf(memory)).toBe('600');
    expect(openEntries(home)).toEqual([]);
    const old = join(home, 'USER.md');
    writeFileSync(old, 'from an earlier version');
    chmodSync(old, 0o644);
    await writeFileAtomic(old, 'rewritten');
    expect(modeOf(old)).toBe('600');
    await writeFileAtomic(join(home, 'shared.txt'), 'on purpose', { mode: 0o640 });
    expect(modeOf(join(home, 'shared.txt'))).toBe('640');
  });

  it("saves a chat's documents, the outbox's copies and the control file privately", async () => {
    const home = tempFolder();
    const saved = await writeNewFile(join(home, 'profiles', 'default', 'temp', 'telegram-dm-1'), 'report.pdf', new TextEncoder().encode('%PDF-1.4'));
    expect(modeOf(saved)).toBe('600');
    const source = join(tempFolder(), 'chart.png');
    writeFileSync(source, 'png bytes');
    chmodSync(source, 0o644);
    const queued = await new Outbox(join(home, 'outbox')).add('telegram:dm:1', source, { size: 9 });
    expect(modeOf(queued.path)).toBe('600');
    await writeControlFile(join(home, 'nested-home'), { pid: 1, url: 'http://127.0.0.1:1', token: 'control-token-value', startedAt: 0 });
    expect(openEntries(home)).toEqual([]);
  });
});

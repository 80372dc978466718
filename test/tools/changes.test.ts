/**
 * File changes recorded by the real file tools into a change log on the filesystem store, and
 * taken back: `/undo` (last, turn, file), at most once, never over a file changed since unless
 * forced; `/diff`; the cap of 100; a restart; contents too large to keep; a failing store.
 */
import { existsSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createStore } from '../../src/store/unstorage-store.ts';
import type { Store } from '../../src/store/store.ts';
import { createApplyPatchTool } from '../../src/tools/builtin/apply-patch.ts';
import { createEditFileTool } from '../../src/tools/builtin/edit-file.ts';
import { createWriteFileTool } from '../../src/tools/builtin/write-file.ts';
import { ChangeLog, flushChangeLogs, maxChanges } from '../../src/tools/changes/change-log.ts';
import { diffCommand, parseUndoArgs, undoCommand, undoUsage } from '../../src/tools/changes/changes-command.ts';
import { maxKeptChars } from '../../src/tools/changes/file-change.ts';
import { FaultyStore } from '../helpers/faulty-store.ts';
import { callTool, makeTempDir, textOf } from './tool-harness.ts';
import { defaultFileAccess, filesIn, localKey } from '../../src/tools/files/turn-files.ts';

/** The worker `/undo` and `/diff` use, over `dir` (as the terminal's). */
const files = (dir: string) => filesIn(defaultFileAccess(), localKey, { cwd: dir, roots: [dir], writable: true, hidden: [] });

const write = createWriteFileTool();
const edit = createEditFileTool();
const patch = createApplyPatchTool();

describe('file changes: record, undo, diff', () => {
  let dir: string;
  let storeDir: string;
  let store: Store;
  let log: ChangeLog;

  beforeEach(async () => {
    dir = await makeTempDir();
    storeDir = await makeTempDir();
    store = createStore({ driver: 'fs', base: storeDir });
    log = new ChangeLog(store, 'telegram%3Adm%3A1');
  });
  afterEach(async () => {
    await store.close();
  });

  /** Calls a tool in `turn`, recording into the log as an agent's turn would. */
  const run = (tool: typeof write | typeof edit | typeof patch, args: Record<string, unknown>, turn = 't1') =>
    callTool(tool as never, args, { cwd: dir, changes: log.forTurn(turn) });
  const file = (name: string) => join(dir, name);
  const read = (name: string) => readFileSync(file(name), 'utf8');

  it('records what write_file, edit_file and apply_patch change: before, after, tool, turn', async () => {
    writeFileSync(file('old.txt'), 'old\n');
    await run(write, { path: 'a.txt', content: 'one\n' });
    await run(edit, { path: 'a.txt', old_string: 'one', new_string: 'two' }, 't2');
    await run(patch, { patch: '--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+new\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-old\n' }, 't2');
    const changes = await log.changes();
    const contents = await Promise.all(changes.map(async ({ path, before, after, tool, turn }) => ({ path, before: before && (await log.content(before)), after: after && (await log.content(after)), tool, turn })));
    expect(contents).toEqual([
      { path: file('a.txt'), before: null, after: 'one\n', tool: 'write_file', turn: 't1' },
      { path: file('a.txt'), before: 'one\n', after: 'two\n', tool: 'edit_file', turn: 't2' },
      { path: file('new.txt'), before: null, after: 'new\n', tool: 'apply_patch', turn: 't2' },
      { path: file('old.txt'), before: 'old\n', after: null, tool: 'apply_patch', turn: 't2' },
    ]);
    expect(changes.every((change) => typeof change.time === 'number' && change.id.length > 0)).toBe(true);
    // The edit's "before" is the write's "after": kept once.
    expect(changes[1]!.before).toBe(changes[0]!.after);
  });

  it('/undo takes back the last change, once; /undo turn every change of the last turn', async () => {
    writeFileSync(file('old.txt'), 'old\n');
    await run(write, { path: 'a.txt', content: 'one\n' });
    await run(edit, { path: 'a.txt', old_string: 'one', new_string: 'two' }, 't2');
    await run(write, { path: 'b.txt', content: 'bee\n' }, 't2');
    await run(patch, { patch: '--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-old\n' }, 't2');

    expect(await undoCommand(log, '', dir, files(dir))).toBe('Undid apply_patch on old.txt: restored it (the change deleted it).');
    expect(read('old.txt')).toBe('old\n');
    expect(await undoCommand(log, 'turn', dir, files(dir))).toBe(
      ['Undid write_file on b.txt: deleted it (the change created it).', 'Undid edit_file on a.txt: restored what it was before.'].join('\n'),
    );
    expect(existsSync(file('b.txt'))).toBe(false);
    expect(read('a.txt')).toBe('one\n');
    // The turn before is next; then nothing is left, and nothing is undone twice.
    expect(await undoCommand(log, 'turn', dir, files(dir))).toBe('Undid write_file on a.txt: deleted it (the change created it).');
    expect(await undoCommand(log, '', dir, files(dir))).toBe('No change is left to undo.');
    expect(existsSync(file('a.txt'))).toBe(false);
  });

  it('/undo file PATH takes back every standing change of that file, newest first', async () => {
    await run(write, { path: 'a.txt', content: 'one\n' });
    await run(write, { path: 'b.txt', content: 'bee\n' });
    await run(edit, { path: 'a.txt', old_string: 'one', new_string: 'two' });
    expect(await undoCommand(log, 'file a.txt', dir, files(dir))).toBe(
      ['Undid edit_file on a.txt: restored what it was before.', 'Undid write_file on a.txt: deleted it (the change created it).'].join('\n'),
    );
    expect(read('b.txt')).toBe('bee\n');
    expect(await undoCommand(log, `file ${file('a.txt')}`, dir, files(dir))).toBe('No change to a.txt is left to undo.');
  });

  it('never overwrites a file changed or deleted since without saying so; force does', async () => {
    await run(write, { path: 'a.txt', content: 'one\n' });
    await run(edit, { path: 'a.txt', old_string: 'one', new_string: 'two' });
    writeFileSync(file('a.txt'), 'by hand\n');
    const refused = await undoCommand(log, 'file a.txt', dir, files(dir));
    expect(refused).toBe(
      [
        'Left a.txt as it is: it has been changed since edit_file changed it (by hand or by another program); add "force" to undo anyway.',
        'Left a.txt (write_file) as it is: a later change to it was not undone.',
      ].join('\n'),
    );
    expect(read('a.txt')).toBe('by hand\n');
    expect(await undoCommand(log, 'force', dir, files(dir))).toBe('Undid edit_file on a.txt: restored what it was before.');
    expect(read('a.txt')).toBe('one\n');
    rmSync(file('a.txt'));
    expect(await undoCommand(log, '', dir, files(dir))).toContain('Left a.txt as it is: it has been deleted since write_file changed it');
  });

  it('/diff shows the standing changes from before the first to now; nothing once undone', async () => {
    writeFileSync(file('old.txt'), 'keep\nold\n');
    await run(write, { path: 'a.txt', content: 'one\n' });
    await run(edit, { path: 'old.txt', old_string: 'old', new_string: 'new' });
    await run(edit, { path: 'old.txt', old_string: 'keep', new_string: 'kept' });
    const { text } = await diffCommand(log, dir, { files: files(dir) });
    expect(text).toMatch(/^2 files changed:\n```diff\n/);
    expect(text).toContain('--- /dev/null\n+++ b/a.txt\n');
    expect(text).toContain('+one');
    expect(text).toContain('--- a/old.txt\n+++ b/old.txt\n@@ -1,2 +1,2 @@\n-keep\n-old\n+kept\n+new\n');
    expect(text.endsWith('```')).toBe(true);
    await undoCommand(log, 'turn', dir, files(dir));
    expect((await diffCommand(log, dir, { files: files(dir) })).text).toBe('No recorded change stands: nothing to show.');
  });

  it('attaches a long diff as a file instead of showing it', async () => {
    await run(write, { path: 'big.txt', content: `${'line of text\n'.repeat(500)}` });
    const folder = join(dir, '.diffs');
    const answer = await diffCommand(log, dir, { inlineLimit: 3_000, folder, files: files(dir) });
    expect(answer.text).toMatch(/^1 file changed; the diff \(\d+ characters\) is attached as changes-.*\.diff\.$/);
    expect(readFileSync(answer.file!.path, 'utf8')).toContain('+line of text');
    expect(answer.file!.size).toBe(readFileSync(answer.file!.path).length);
  });

  it('keeps the newest 100 changes, rewriting the log so it never grows without bound', async () => {
    for (let index = 0; index < 170; index++) await log.record({ path: file(`f${index}`), before: null, after: `${index}`, tool: 'write_file' }, `t${index}`);
    const changes = await log.changes();
    expect(changes).toHaveLength(maxChanges);
    expect(await log.content(changes[0]!.after!)).toBe('70');
    expect((await store.readLog('changes:telegram%3Adm%3A1')).length).toBeLessThanOrEqual(maxChanges * 1.5);
    expect(await store.list('changes-rewrite:')).toEqual([]);
    // The contents of dropped changes are gone with them.
    expect((await store.list('change-contents:')).length).toBeLessThanOrEqual(maxChanges * 1.5);
  });

  it('survives a restart: a new store and log on the same folder undo what the old one recorded', async () => {
    await run(write, { path: 'a.txt', content: 'one\n' });
    // What a shutdown does before the store closes (see Runtime.close).
    await flushChangeLogs();
    await store.close();
    store = createStore({ driver: 'fs', base: storeDir });
    log = new ChangeLog(store, 'telegram%3Adm%3A1');
    expect(await undoCommand(log, '', dir, files(dir))).toBe('Undid write_file on a.txt: deleted it (the change created it).');
    // The undo is remembered across a restart too.
    store = createStore({ driver: 'fs', base: storeDir });
    expect(await undoCommand(new ChangeLog(store, 'telegram%3Adm%3A1'), '', dir, files(dir))).toBe('No change is left to undo.');
  });

  it('records a change too large to keep without its contents, and says it cannot be undone', async () => {
    const big = 'x'.repeat(maxKeptChars + 1);
    await run(write, { path: 'big.txt', content: big });
    const [change] = await log.changes();
    expect(change).toMatchObject({ before: null, after: null, omitted: true });
    expect(await undoCommand(log, '', dir, files(dir))).toBe('Left big.txt as it is: the file was too large for its contents to be kept, so this change cannot be undone.');
    expect(readFileSync(file('big.txt'), 'utf8')).toBe(big);
    expect((await diffCommand(log, dir, { files: files(dir) })).text).toBe('No recorded change stands: nothing to show.\nNot shown (their contents were not kept): big.txt.');
  });

  it('a store that fails to record: the file is still written, and the next /undo says what was not recorded', async () => {
    const faulty = new FaultyStore(store);
    const failing = new ChangeLog(faulty, 'x');
    faulty.fail('ENOSPC');
    const output = await callTool(write, { path: 'a.txt', content: 'one\n' }, { cwd: dir, changes: failing.forTurn('t1') });
    expect(read('a.txt')).toBe('one\n');
    expect(textOf(output)).toBe('Successfully wrote to a.txt');
    await failing.flush();
    faulty.heal();
    expect(await undoCommand(failing, '', dir, files(dir))).toMatch(/^Note: a change to .*a\.txt by write_file could not be recorded \(.*no space left on device.*\)\.\nNo change is left to undo\.$/);
    // Said once.
    expect(await undoCommand(failing, '', dir, files(dir))).toBe('No change is left to undo.');
  });

  it('refuses words it does not know, with the usage', () => {
    expect(parseUndoArgs('everything')).toBe(undoUsage);
    expect(parseUndoArgs('file')).toBe(undoUsage);
    expect(parseUndoArgs('turn force')).toEqual({ selection: { kind: 'turn' }, force: true });
    expect(parseUndoArgs('file my notes.txt')).toEqual({ selection: { kind: 'file', path: 'my notes.txt' }, force: false });
  });
});

/**
 * The files a `shell` command creates, modifies and deletes in its workspace, recorded by the real
 * shell tool into a real change log (memory store) and taken back by `/undo turn`: only inside the
 * workspace's roots, never in heavy folders, OPERATOR_HOME's private entries or hidden folders;
 * nothing past the file-count or kept-bytes limit (with a note); binary and large files named,
 * not recorded; a failing, timed-out or aborted command's changes recorded all the same; nothing
 * at all without a recorder.
 */
import { existsSync, mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createStore } from '../../src/store/unstorage-store.ts';
import type { Store } from '../../src/store/store.ts';
import { createShellTool } from '../../src/tools/builtin/shell.ts';
import { ChangeLog, maxChanges } from '../../src/tools/changes/change-log.ts';
import { diffCommand } from '../../src/tools/changes/changes-command.ts';
import { undoChanges } from '../../src/tools/changes/undo.ts';
import { WorkspaceSnapshot } from '../../src/tools/changes/workspace-snapshot.ts';
import type { ToolContext, TurnContext, Workspace } from '../../src/tools/tool.ts';
import { callTool, makeTempDir, textOf } from './tool-harness.ts';
import { defaultFileAccess, filesIn, localKey } from '../../src/tools/files/turn-files.ts';

/** The worker `/undo` and `/diff` use, over `dir` (as the terminal's). */
const files = (dir: string) => filesIn(defaultFileAccess(), localKey, { cwd: dir, roots: [dir], writable: true, hidden: [] });

const shell = createShellTool({ killGraceMs: 200 });

describe('shell: file changes recorded for /undo and /diff', () => {
  let dir: string;
  let store: Store;
  let log: ChangeLog;

  beforeEach(async () => {
    dir = await makeTempDir();
    store = createStore({ driver: 'memory' });
    log = new ChangeLog(store, 'telegram%3Adm%3A1');
  });
  afterEach(async () => {
    await store.close();
  });

  const file = (name: string) => join(dir, name);
  const put = (name: string, content: string | Buffer) => {
    mkdirSync(join(file(name), '..'), { recursive: true });
    writeFileSync(file(name), content);
  };
  const read = (name: string) => readFileSync(file(name), 'utf8');
  /** Runs `command` with the shell tool in `dir`, recording into the log as a turn would. */
  const run = (command: string, context: Partial<ToolContext> = {}, extra: Record<string, unknown> = {}) =>
    callTool(shell, { command, ...extra }, { cwd: dir, changes: log.forTurn('t1'), ...context });
  /** The recorded changes with their contents, paths relative to `dir`. */
  const recorded = async () =>
    Promise.all(
      (await log.changes()).map(async ({ path, before, after, tool, turn }) => ({
        path: path.startsWith(`${dir}/`) ? path.slice(dir.length + 1) : path,
        before: before && (await log.content(before)),
        after: after && (await log.content(after)),
        tool,
        turn,
      })),
    );
  const turnIn = (workspace: Workspace): TurnContext => ({ sessionKey: 'telegram:dm:1', platform: 'telegram', senderId: '1', admin: false, scheduled: false, workspace });

  it('records each file a command creates, modifies and deletes; /undo turn takes them all back; /diff shows them', async () => {
    put('a.txt', 'one\n');
    put('gone.txt', 'bye\n');
    put('same.txt', 'same\n');
    const output = await run("printf 'two\\n' > a.txt; mkdir -p sub && echo new > sub/new.txt; rm gone.txt; touch same.txt; echo done");
    expect(output).toEqual({ content: 'done', isError: false });
    expect(await recorded()).toEqual([
      { path: 'a.txt', before: 'one\n', after: 'two\n', tool: 'shell', turn: 't1' },
      { path: 'gone.txt', before: 'bye\n', after: null, tool: 'shell', turn: 't1' },
      { path: 'sub/new.txt', before: null, after: 'new\n', tool: 'shell', turn: 't1' },
    ]);

    const diff = await diffCommand(log, dir, { files: files(dir) });
    expect(diff.text).toMatch(/^3 files changed:\n```diff\n/);
    expect(diff.text).toContain('--- a/a.txt\n+++ b/a.txt\n@@ -1,1 +1,1 @@\n-one\n+two\n');
    expect(diff.text).toContain('--- a/gone.txt\n+++ /dev/null\n');
    expect(diff.text).toContain('--- /dev/null\n+++ b/sub/new.txt\n');

    const report = await undoChanges(log, { kind: 'turn' }, { cwd: dir, files: files(dir) });
    expect(report).toMatchObject({ undone: 3, refused: 0 });
    expect(report.lines).toEqual([
      'Undid shell on sub/new.txt: deleted it (the change created it).',
      'Undid shell on gone.txt: restored it (the change deleted it).',
      'Undid shell on a.txt: restored what it was before.',
    ]);
    expect(read('a.txt')).toBe('one\n');
    expect(read('gone.txt')).toBe('bye\n');
    expect(existsSync(file('sub/new.txt'))).toBe(false);
    expect(read('same.txt')).toBe('same\n');
  });

  it('in a settled workspace goes by the stats: sees a rewrite whose size and mtime were set back (as cp -p and tar do), not one to the same content', async () => {
    put('kept.txt', 'aaaa\n');
    put('same.txt', 'same\n');
    put('untouched.txt', 'as is\n');
    utimesSync(file('kept.txt'), 1_000_000, 1_000_000);
    // Past the 2 s in which a file is compared by content whatever its stats: only ctime can tell.
    await new Promise((resolve) => setTimeout(resolve, 2_100));
    await run("printf 'bbbb\\n' > kept.txt; touch -m -d @1000000 kept.txt; printf 'same\\n' > same.txt");
    expect(await recorded()).toEqual([{ path: 'kept.txt', before: 'aaaa\n', after: 'bbbb\n', tool: 'shell', turn: 't1' }]);
  });

  it('records nothing outside the workspace roots, in a hidden folder, or through a symbolic link; a second root is seen', async () => {
    const outside = await makeTempDir();
    const second = await makeTempDir();
    writeFileSync(join(outside, 'target.txt'), 'outside\n');
    symlinkSync(join(outside, 'target.txt'), file('link.txt'));
    mkdirSync(file('private'));
    const turn = turnIn({ cwd: dir, roots: [dir, second], hidden: [file('private')] });
    await run(`echo x > ${outside}/made.txt; echo y > link.txt; echo z > private/secret.txt; echo w > ${second}/other.txt; echo v > in.txt`, { turn });
    expect(readFileSync(join(outside, 'target.txt'), 'utf8')).toBe('y\n');
    const changes = await recorded();
    expect(changes).toHaveLength(2);
    expect(changes).toEqual(
      expect.arrayContaining([
        { path: join(second, 'other.txt'), before: null, after: 'w\n', tool: 'shell', turn: 't1' },
        { path: 'in.txt', before: null, after: 'v\n', tool: 'shell', turn: 't1' },
      ]),
    );
  });

  it('walks a root inside another root once, and a root inside a hidden folder (as a conversation folder in OPERATOR_HOME)', async () => {
    mkdirSync(file('home/own'), { recursive: true });
    mkdirSync(file('nested'));
    const turn = turnIn({ cwd: dir, roots: [dir, file('home/own'), file('nested')], hidden: [file('home')] });
    await run('echo a > home/own/mine.txt; echo b > home/theirs.txt; echo c > nested/n.txt', { turn });
    expect(await recorded()).toEqual([
      { path: 'home/own/mine.txt', before: null, after: 'a\n', tool: 'shell', turn: 't1' },
      { path: 'nested/n.txt', before: null, after: 'c\n', tool: 'shell', turn: 't1' },
    ]);
  });

  it('skips heavy folders, caches, virtualenvs and the private entries of an OPERATOR_HOME', async () => {
    put('node_modules/pkg/index.js', 'old');
    put('.git/HEAD', 'ref: refs/heads/main\n');
    put('target/CACHEDIR.TAG', 'Signature: 8a477f597d28d172789f06886806bc55\n');
    put('env/pyvenv.cfg', 'home = /usr/bin\n');
    put('home/operator.json', '{}\n');
    put('home/state/changes/x', '{}\n');
    put('home/profiles/default/MEMORY.md', 'old\n');
    await run(
      [
        'echo new > node_modules/pkg/index.js',
        'echo x > .git/HEAD',
        'echo built > target/out.bin',
        'echo lib > env/lib.py',
        'echo y > home/state/changes/x',
        'echo z > home/operator.json',
        'echo new > home/profiles/default/MEMORY.md',
        'echo seen > src.ts',
      ].join('; '),
    );
    expect(await recorded()).toEqual([
      { path: 'home/profiles/default/MEMORY.md', before: 'old\n', after: 'new\n', tool: 'shell', turn: 't1' },
      { path: 'src.ts', before: null, after: 'seen\n', tool: 'shell', turn: 't1' },
    ]);
  });

  it('past 5,000 files tracks nothing and says so', async () => {
    mkdirSync(file('many'));
    for (let index = 0; index <= 5_000; index++) writeFileSync(file(`many/f${index}.txt`), `${index}\n`);
    const output = await run('echo changed > many/f1.txt; echo hi');
    expect(output).toEqual({ content: 'hi\n(file changes not tracked: the workspace has more than 5000 files)', isError: false });
    expect(await log.changes()).toEqual([]);
    expect(read('many/f1.txt')).toBe('changed\n');
  });

  it('past the kept-bytes limit tracks nothing (the limit of the snapshot itself)', async () => {
    put('a.txt', 'x'.repeat(600));
    put('b.txt', 'y'.repeat(600));
    const snapshot = await WorkspaceSnapshot.take({ roots: [dir], limits: { maxKeptBytes: 1_000 } });
    expect(snapshot.untracked).toBe("the workspace's files come to more than 1000 bytes to keep");
    expect(await snapshot.compare()).toEqual({ changes: [], unrecorded: [], untracked: "the workspace's files come to more than 1000 bytes to keep" });
  });

  it('names binary and too-large files that changed, without recording them', async () => {
    put('logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3]));
    put('big.log', 'x'.repeat(2 * 1024 * 1024 + 1));
    put('text.txt', 'old\n');
    const output = await run("printf '\\x00\\x01' >> logo.png; echo more >> big.log; printf '\\xff\\xfe' > latin.txt; echo new > text.txt");
    expect(textOf(output)).toBe('(no output)\n(changed but not recorded for /undo: big.log (over 2 MiB), latin.txt (binary), logo.png (binary))');
    expect(await recorded()).toEqual([{ path: 'text.txt', before: 'old\n', after: 'new\n', tool: 'shell', turn: 't1' }]);
  });

  it(`records nothing when a command changes more files than the ${maxChanges} changes /undo keeps`, async () => {
    const output = await run(`for i in $(seq 1 ${maxChanges + 1}); do echo $i > f$i.txt; done`);
    expect(textOf(output)).toBe(`(no output)\n(file changes not recorded: the command changed ${maxChanges + 1} files, more than the ${maxChanges} changes /undo keeps)`);
    expect(await log.changes()).toEqual([]);
  });

  it('records what a failing command changed', async () => {
    put('a.txt', 'one\n');
    const output = await run('echo two > a.txt; exit 3');
    expect(output).toEqual({ content: '[Exit code: 3]', isError: true });
    expect(await recorded()).toEqual([{ path: 'a.txt', before: 'one\n', after: 'two\n', tool: 'shell', turn: 't1' }]);
    await undoChanges(log, { kind: 'turn' }, { cwd: dir, files: files(dir) });
    expect(read('a.txt')).toBe('one\n');
  });

  it('records what a command changed before it timed out', async () => {
    const output = await run('echo partial > out.txt; sleep 10', {}, { timeout_ms: 300 });
    expect(output).toEqual({ content: '[Command timed out after 300ms]', isError: true });
    expect(await recorded()).toEqual([{ path: 'out.txt', before: null, after: 'partial\n', tool: 'shell', turn: 't1' }]);
  });

  it('records what a command changed before the turn was aborted', async () => {
    const controller = new AbortController();
    const onOutput = (text: string) => {
      if (text.includes('started')) controller.abort();
    };
    await expect(run('echo partial > out.txt; echo started; sleep 10', { signal: controller.signal, onOutput })).rejects.toThrow();
    expect(await recorded()).toEqual([{ path: 'out.txt', before: null, after: 'partial\n', tool: 'shell', turn: 't1' }]);
  });

  it('without a change recorder walks nothing and adds nothing to the result', async () => {
    const take = vi.spyOn(WorkspaceSnapshot, 'take');
    try {
      put('a.txt', 'one\n');
      const output = await callTool(shell, { command: 'echo changed > a.txt; echo hi' }, { cwd: dir });
      expect(output).toEqual({ content: 'hi', isError: false });
      expect(read('a.txt')).toBe('changed\n');
      expect(take).not.toHaveBeenCalled();
      // With one, the same call walks once.
      await run('true');
      expect(take).toHaveBeenCalledTimes(1);
    } finally {
      take.mockRestore();
    }
  });
});

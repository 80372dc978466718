/**
 * What the `code` tool tells gopls about the module's files at each call (see
 * `src/tools/code/disk-changes.ts`), seen by a stand-in `gopls` that reports, on each text it is
 * sent, every `workspace/didChangeWatchedFiles` it was sent since the last (asked each time about
 * a probe file whose text changes, so that there is a report): the whole folder on
 * the first call, nothing when nothing changed, the files made, written (the same size and time
 * included) and removed since, and the whole folder again when the listing fails (the worker's
 * error, its time limit, too many files, no listing). The real gopls seeing those changes is
 * `code-go.test.ts`'s.
 */
import { chmod, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { workerLister } from '../../src/tools/code/code-files.ts';
import type { DiskLister } from '../../src/tools/code/disk-changes.ts';
import { LanguageServer } from '../../src/tools/code/language-server.ts';
import { LanguageServers } from '../../src/tools/code/language-servers.ts';
import { goDialect } from '../../src/tools/code/server-dialects.ts';
import { createCodeTool } from '../../src/tools/code/code-tool.ts';
import { FileAccess } from '../../src/tools/files/file-access.ts';
import { FileWorkerTimeoutError } from '../../src/tools/files/file-worker.ts';
import { filesIn } from '../../src/tools/files/turn-files.ts';
import { standInServer } from '../helpers/stand-in-server.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';
import { diskReader, folderWith, writeFiles } from './code-server-harness.ts';
import { sandboxFor } from './sandbox-harness.ts';
import { callTool, textOf } from './tool-harness.ts';

const home = createTempHome('operator-code-go-changes-home-');
afterAll(() => removeTempHome(home));

/**
 * A stand-in `gopls` whose report on each text it is sent says the file notices it was sent
 * since its last report: `sub/a.go 2, sub/b.go 1` for one notice, `|` between notices, `.` for
 * the module's folder, `no notice` when there was none.
 */
const tellingServer = standInServer({
  versionArgument: 'version',
  version: 'golang.org/x/tools/gopls v0.0-telling',
  onMessage: String.raw`
if method == 'initialize':
    root = message['params']['rootUri']
    notices = []
if method == 'workspace/didChangeWatchedFiles':
    notices.append(', '.join('%s %d' % (change['uri'][len(root) + 1:] or '.', change['type']) for change in message['params']['changes']))
if method in ('textDocument/didOpen', 'textDocument/didChange'):
    document = message['params']['textDocument']
    place = {'start': {'line': 0, 'character': 0}, 'end': {'line': 0, 'character': 7}}
    said = {'range': place, 'severity': 1, 'source': 'stand-in', 'message': ' | '.join(notices) or 'no notice'}
    send({'jsonrpc': '2.0', 'method': 'textDocument/publishDiagnostics', 'params': {'uri': document['uri'], 'version': document['version'], 'diagnostics': [said]}})
    notices = []
`,
});

/** The module's files, every one an hour old (so none counts as just written). */
const module = {
  'go.mod': 'module example.com/app\n\ngo 1.19\n',
  'app.go': 'package app\n',
  'sub/a.go': 'package sub\n\nvar A = 1\n',
  'sub/old.go': 'package sub\n\nvar Old = 1\n',
};

/** Sets `files` of `project` an hour back, to a whole second (so it can be set again exactly). */
async function age(project: string, files: readonly string[]): Promise<void> {
  const then = Math.floor(Date.now() / 1000) - 3600;
  for (const file of files) await utimes(path.join(project, file), then, then);
}

/** A stand-in gopls on a PATH of its own (with a go that does nothing), and a module for it. */
async function setUp() {
  const bin = await folderWith({ 'gopls': tellingServer, 'go': '#!/bin/sh\nexit 1\n' }, 'operator-code-go-changes-bin-');
  await chmod(path.join(bin, 'gopls'), 0o755);
  await chmod(path.join(bin, 'go'), 0o755);
  const project = await folderWith(module, 'operator-code-go-changes-');
  await age(project, Object.keys(module));
  return { env: { PATH: bin, HOME: home }, project, gopls: path.join(bin, 'gopls') };
}

/**
 * A probe's text at each call: its report says what the stand-in was told since the last. The
 * probe changes at every call, so that it is sent, and is reported on, even when nothing else
 * changed; it lies in `testdata`, which the listing leaves out, so it is never told of itself.
 */
const probe = 'testdata/probe.go';
let probes = 0;
const probeText = () => `package probe

// call ${++probes}
`;

/** The code tool on a stand-in's module: `told()` is what the stand-in was told before the call's report on the probe. */
async function toolOnModule() {
  const { env, project } = await setUp();
  const servers = new LanguageServers({ sandbox: sandboxFor(home, env), env });
  onTestFinished(() => servers.closeAll());
  const tool = createCodeTool({ servers });
  const told = async () => {
    await writeFiles(project, { [probe]: probeText() });
    const text = textOf(await callTool(tool, { action: 'diagnostics', path: probe }, { cwd: project }));
    expect(text.startsWith(`${probe}:1:1 error stand-in `)).toBe(true);
    return text.slice(`${probe}:1:1 error stand-in `.length);
  };
  return { project, told };
}

describe('code tool on Go: what gopls is told of the disk', { timeout: 60_000 }, () => {
  it('the whole folder on the first call; then nothing when nothing changed, nor when only files gopls does not read did', async () => {
    const { project, told } = await toolOnModule();
    expect(await told()).toBe('. 2');
    expect(await told()).toBe('no notice');
    expect(await told()).toBe('no notice');
    // Not Go, or in folders go list leaves out.
    await writeFiles(project, { 'README.md': 'app\n', 'testdata/case.go': 'package x\n', '.cache/c.go': 'package c\n', '_old/o.go': 'package o\n', 'node_modules/m/m.go': 'package m\n' });
    expect(await told()).toBe('no notice');
  });

  it('a file rewritten with the same size and the same modification time, and one rewritten at once with the same size', async () => {
    const { project, told } = await toolOnModule();
    expect(await told()).toBe('. 2');
    const file = path.join(project, 'sub', 'a.go');
    const before = await stat(file, { bigint: true });
    await writeFile(file, 'package sub\n\nvar A = 2\n');
    await utimes(file, before.atime, before.mtime);
    const after = await stat(file, { bigint: true });
    // What a file system with coarse times would show: the same size and modification time.
    expect([after.size, after.mtimeNs]).toEqual([before.size, before.mtimeNs]);
    expect(await told()).toBe('sub/a.go 2');
    expect(await told()).toBe('no notice');
    // Written just now: told, and told again on the next call, since another write within the
    // same tick of the clock could leave the same stamp; once old, no more.
    await writeFile(file, 'package sub\n\nvar A = 3\n');
    expect(await told()).toBe('sub/a.go 2');
    expect(await told()).toBe('sub/a.go 2');
    await age(project, ['sub/a.go']);
    expect(await told()).toBe('sub/a.go 2');
    expect(await told()).toBe('no notice');
    expect(await readFile(file, 'utf8')).toBe('package sub\n\nvar A = 3\n');
  });

  it('a file removed and one made in a package below, and go.mod and the vendor list changed, in one notice', async () => {
    const { project, told } = await toolOnModule();
    expect(await told()).toBe('. 2');
    await rm(path.join(project, 'sub', 'old.go'));
    await writeFiles(project, { 'sub/new.go': 'package sub\n\nvar New = 1\n', 'go.mod': 'module example.com/app\n\ngo 1.20\n', 'vendor/modules.txt': '# none\n' });
    expect(await told()).toBe('go.mod 2, sub/new.go 1, sub/old.go 3, vendor/modules.txt 1');
    await age(project, ['go.mod', 'sub/new.go', 'vendor/modules.txt']);
    expect(await told()).toBe('go.mod 2, sub/new.go 2, vendor/modules.txt 2');
    expect(await told()).toBe('no notice');
  });

  it('the whole folder again when a listing fails: the worker times out, fails, stops at its limits, or there is none', async () => {
    const { env, project, gopls } = await setUp();
    const access = new FileAccess({ sandbox: sandboxFor(home, env), hidden: [home] });
    onTestFinished(() => access.closeAll());
    const files = filesIn(access, 'test', { cwd: project, roots: [project], writable: false, hidden: [] });
    const server = await LanguageServer.start({ root: project, spawn: { file: gopls, args: [], env, cwd: project }, dialect: goDialect, parentPid: null });
    onTestFinished(() => server.stop());
    const probed = path.join(project, probe);
    const told = async (lister: DiskLister | undefined) => {
      await server.open(probed, 'go', probeText(), diskReader, lister);
      return (await server.diagnostics(probed)).map((found) => found.text).join('\n');
    };
    const lister = workerLister(files);
    expect(await told(lister)).toBe('. 2');
    expect(await told(lister)).toBe('no notice');
    const timedOut: DiskLister = () => Promise.reject(new FileWorkerTimeoutError(10_000));
    expect(await told(timedOut)).toBe('. 2');
    // The listing before the failure is dropped: the next is compared with none.
    expect(await told(lister)).toBe('. 2');
    expect(await told(lister)).toBe('no notice');
    // The worker fails: the folder it is asked to list is not there.
    const missing: DiskLister = (root, selection) => lister(path.join(root, 'missing'), selection);
    await expect(missing(project, goDialect.toldOfDisk!)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await told(missing)).toBe('. 2');
    expect(await told(lister)).toBe('. 2');
    // More files than the listing counts: incomplete.
    const capped = workerLister(files, { maxFiles: 2 });
    expect((await capped(project, goDialect.toldOfDisk!)).complete).toBe(false);
    expect(await told(capped)).toBe('. 2');
    expect(await told(lister)).toBe('. 2');
    expect(await told(undefined)).toBe('. 2');
  });
});

/**
 * The workspace read through the command runner (src/pipelines/task/workspace-index.ts), with
 * bash in a temp folder: the files of a git repository and of a plain folder (the dependency
 * folders left out), the profile from the manifests (a manifest that is a link not followed), the
 * keyword search, snippets, the changes git sees, a refused runner, and words that are not shell.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { extractKeywords, indexWorkspace, readSnippets, runWith, searchFiles, workspaceChanges } from '../../../src/pipelines/task/workspace-index.ts';
import { bashRunner } from './bash-runner.ts';

let folder: string | undefined;
afterEach(() => {
  if (folder) rmSync(folder, { recursive: true, force: true });
  folder = undefined;
});

function workspace(files: Record<string, string>, git = false): string {
  folder = mkdtempSync(join(tmpdir(), 'operator-index-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), text);
  }
  if (git) {
    const gitIn = (...args: string[]) => execFileSync('git', args, { cwd: folder, stdio: 'ignore' });
    gitIn('init', '-q');
    writeFileSync(join(folder, '.gitignore'), 'node_modules/\n');
    gitIn('add', '-A');
    gitIn('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-qm', 'start');
  }
  return folder;
}

const signal = new AbortController().signal;
const node = { 'package.json': '{"scripts":{"test":"node --test"}}', 'src/sum.js': 'export const sum = (a, b) => a - b;\n', 'test/sum.test.js': "import { sum } from '../src/sum.js';\n", 'node_modules/x/index.js': 'x' };

describe('the workspace index', () => {
  it('lists a plain folder with find, the dependency folders left out, and reads the profile from its manifests', async () => {
    const run = runWith(bashRunner(workspace(node)), signal);
    const index = await indexWorkspace(run);
    expect(index.git).toBe(false);
    expect(index.files.sort()).toEqual(['package.json', 'src/sum.js', 'test/sum.test.js']);
    expect(index.profile).toEqual({ language: 'JavaScript', packageManager: 'npm', testCommands: ['npm test'] });
  });

  it('lists a git repository with git (its ignored files left out), and tells the files the run created and modified', async () => {
    const cwd = workspace(node, true);
    const run = runWith(bashRunner(cwd), signal);
    expect((await indexWorkspace(run)).git).toBe(true);
    expect((await indexWorkspace(run)).files).not.toContain('node_modules/x/index.js');
    expect(await workspaceChanges(run)).toEqual({ created: [], modified: [], diff: '' });
    writeFileSync(join(cwd, 'src/sum.js'), 'export const sum = (a, b) => a + b;\n');
    writeFileSync(join(cwd, 'NOTES.md'), 'new\n');
    const changes = (await workspaceChanges(run))!;
    expect(changes.created).toEqual(['NOTES.md']);
    expect(changes.modified).toEqual(['src/sum.js']);
    expect(changes.diff).toContain('src/sum.js | 2');
    expect(changes.diff).toContain('+export const sum = (a, b) => a + b;');
  });

  it('tracks no change outside a git repository, and gives nothing (no error) when its commands are refused', async () => {
    expect(await workspaceChanges(runWith(bashRunner(workspace(node)), signal))).toBeUndefined();
    const refused = runWith(async () => ({ exitCode: null, output: '', refused: 'no shell here' }), signal);
    expect(await indexWorkspace(refused)).toEqual({ files: [], truncated: false, git: false, profile: { language: undefined, packageManager: undefined, testCommands: [] } });
    expect(await workspaceChanges(refused)).toBeUndefined();
    expect(await searchFiles(refused, ['sum'], 5)).toEqual([]);
  });

  it('does not follow a manifest or a snippet that is a link', async () => {
    const cwd = workspace({ 'secret.json': '{"scripts":{"test":"leak"}}', 'a.js': 'a' });
    symlinkSync(join(cwd, 'secret.json'), join(cwd, 'package.json'));
    symlinkSync(join(cwd, 'secret.json'), join(cwd, 'link.js'));
    const run = runWith(bashRunner(cwd), signal);
    expect((await indexWorkspace(run)).profile.testCommands).toEqual([]);
    expect([...(await readSnippets(run, ['link.js', 'a.js'], 100)).keys()]).toEqual(['a.js']);
  });

  it('finds the files holding the most keywords first, and reads their first characters', async () => {
    const run = runWith(bashRunner(workspace({ ...node, 'README.md': 'sum of things' })), signal);
    expect(await searchFiles(run, ['sum', 'import'], 5)).toEqual(['test/sum.test.js', expect.any(String), expect.any(String)]);
    expect((await readSnippets(run, ['src/sum.js'], 12)).get('src/sum.js')).toBe('export const');
  });

  it('passes words and paths to the shell as words, never as commands', async () => {
    const cwd = workspace(node);
    const run = runWith(bashRunner(cwd), signal);
    await searchFiles(run, ["x'; touch pwned; echo '", '$(touch pwned2)'], 5);
    await readSnippets(run, ["'; touch pwned3; '"], 10);
    for (const name of ['pwned', 'pwned2', 'pwned3']) expect(existsSync(join(cwd, name))).toBe(false);
  });

  it('picks identifiers and file names out of a text, common words left out', () => {
    expect(extractKeywords('Fix the failing test: sumNumbers in src/sum.js returns the wrong value')).toEqual(['src/sum.js', 'sumNumbers', 'returns', 'wrong', 'value']);
    expect(extractKeywords('a b c d'.repeat(3))).toEqual([]);
  });
});

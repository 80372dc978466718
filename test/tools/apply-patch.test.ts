import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createApplyPatchTool } from '../../src/tools/builtin/apply-patch.ts';
import { callTool, makeTempDir } from './tool-harness.ts';

const applyPatchTool = createApplyPatchTool();

async function project(files: Record<string, string>): Promise<string> {
  const cwd = await makeTempDir();
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(cwd, name)), { recursive: true });
    await writeFile(path.join(cwd, name), content);
  }
  return cwd;
}

const read = (cwd: string, name: string) => readFile(path.join(cwd, name), 'utf8');
const exists = (cwd: string, name: string) => read(cwd, name).then(() => true, () => false);

describe('apply_patch', () => {
  it('updates, creates and deletes files in one patch', async () => {
    const cwd = await project({ 'src/a.ts': 'one\ntwo\nthree\n', 'old.txt': 'bye\n' });
    const patch = [
      '--- a/src/a.ts',
      '+++ b/src/a.ts',
      '@@ -1,3 +1,3 @@',
      ' one',
      '-two',
      '+TWO',
      ' three',
      '--- /dev/null',
      '+++ b/docs/new.md',
      '@@ -0,0 +1,2 @@',
      '+# New',
      '+text',
      '--- a/old.txt',
      '+++ /dev/null',
      '@@ -1 +0,0 @@',
      '-bye',
      '',
    ].join('\n');
    expect(await callTool(applyPatchTool, { patch }, { cwd })).toEqual({
      content: 'Successfully applied patch:\nupdated src/a.ts\ncreated docs/new.md\ndeleted old.txt',
    });
    expect(await read(cwd, 'src/a.ts')).toBe('one\nTWO\nthree\n');
    expect(await read(cwd, 'docs/new.md')).toBe('# New\ntext\n');
    expect(await exists(cwd, 'old.txt')).toBe(false);
  });

  it('accepts plain diff -u headers without a/ b/ prefixes', async () => {
    const cwd = await project({ 'notes.txt': 'alpha\nbeta\n' });
    const patch = '--- notes.txt\t2024-01-01 10:00:00\n+++ notes.txt\t2024-01-02 10:00:00\n@@ -1,2 +1,2 @@\n alpha\n-beta\n+gamma\n';
    expect(await callTool(applyPatchTool, { patch }, { cwd })).toEqual({ content: 'Successfully applied patch:\nupdated notes.txt' });
    expect(await read(cwd, 'notes.txt')).toBe('alpha\ngamma\n');
  });

  it('applies a git diff with a rename and an empty new file', async () => {
    const cwd = await project({ 'before.txt': 'keep\nchange\n' });
    const patch = [
      'diff --git a/before.txt b/after.txt',
      'similarity index 80%',
      'rename from before.txt',
      'rename to after.txt',
      '--- a/before.txt',
      '+++ b/after.txt',
      '@@ -1,2 +1,2 @@',
      ' keep',
      '-change',
      '+changed',
      'diff --git a/empty.txt b/empty.txt',
      'new file mode 100644',
      'index 0000000..e69de29',
      '',
    ].join('\n');
    expect(await callTool(applyPatchTool, { patch }, { cwd })).toEqual({
      content: 'Successfully applied patch:\nrenamed before.txt -> after.txt\ncreated empty.txt',
    });
    expect(await exists(cwd, 'before.txt')).toBe(false);
    expect(await read(cwd, 'after.txt')).toBe('keep\nchanged\n');
    expect(await read(cwd, 'empty.txt')).toBe('');
  });

  it('finds a hunk whose line numbers are off and repairs wrong line counts', async () => {
    const cwd = await project({ 'list.txt': 'a\nb\nc\nd\ne\nf\n' });
    const patch = '--- a/list.txt\n+++ b/list.txt\n@@ -1,9 +1,9 @@\n d\n-e\n+E\n f\n';
    expect(await callTool(applyPatchTool, { patch }, { cwd })).toEqual({ content: 'Successfully applied patch:\nupdated list.txt' });
    expect(await read(cwd, 'list.txt')).toBe('a\nb\nc\nd\nE\nf\n');
  });

  it('applies hunks whose headers have no line numbers', async () => {
    const cwd = await project({ 'list.txt': 'a\nb\nc\nd\n' });
    const patch = '--- a/list.txt\n+++ b/list.txt\n@@ @@\n c\n-d\n+D\n';
    expect(await callTool(applyPatchTool, { patch }, { cwd })).toEqual({ content: 'Successfully applied patch:\nupdated list.txt' });
    expect(await read(cwd, 'list.txt')).toBe('a\nb\nc\nD\n');
  });

  it('changes nothing when one file of the patch does not apply', async () => {
    const cwd = await project({ 'good.txt': 'x\ny\n', 'bad.txt': 'p\nq\n' });
    const patch = [
      '--- a/good.txt',
      '+++ b/good.txt',
      '@@ -1,2 +1,2 @@',
      ' x',
      '-y',
      '+Y',
      '--- a/bad.txt',
      '+++ b/bad.txt',
      '@@ -1,2 +1,2 @@',
      ' p',
      '-not there',
      '+r',
      '',
    ].join('\n');
    expect(await callTool(applyPatchTool, { patch }, { cwd })).toEqual({
      content:
        'Error: hunk 1 of 1 (@@ -1,2 +1,2 @@) does not match bad.txt. Read the file again and make the context lines ' +
        'match it exactly. No file was changed.',
      isError: true,
    });
    expect(await read(cwd, 'good.txt')).toBe('x\ny\n');
    expect(await read(cwd, 'bad.txt')).toBe('p\nq\n');
  });

  it('names the first hunk that does not fit', async () => {
    const cwd = await project({ 'f.txt': Array.from({ length: 20 }, (_, index) => `l${index}`).join('\n') + '\n' });
    const patch = '--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n l0\n-l1\n+L1\n@@ -15,2 +15,2 @@\n l14\n-nope\n+L15\n';
    const output = await callTool(applyPatchTool, { patch }, { cwd });
    expect(output.isError).toBe(true);
    expect(output.content).toMatch(/^Error: hunk 2 of 2 \(@@ -15,2 \+15,2 @@\) does not match f\.txt\./);
  });

  it('reports missing files, existing files to create, and patches without changes', async () => {
    const cwd = await project({ 'here.txt': 'x\n' });
    expect(await callTool(applyPatchTool, { patch: '--- a/gone.txt\n+++ b/gone.txt\n@@ -1 +1 @@\n-x\n+y\n' }, { cwd })).toEqual({
      content: 'Error: file not found: gone.txt',
      isError: true,
    });
    expect(await callTool(applyPatchTool, { patch: '--- /dev/null\n+++ b/here.txt\n@@ -0,0 +1 @@\n+y\n' }, { cwd })).toEqual({
      content: 'Error: cannot create here.txt: it already exists',
      isError: true,
    });
    expect(await callTool(applyPatchTool, { patch: 'just some text\n' }, { cwd })).toEqual({
      content: 'Error: no file changes found in the patch',
      isError: true,
    });
  });

  it('reports a malformed patch', async () => {
    const cwd = await project({ 'here.txt': 'x\n' });
    const patch = '--- a/here.txt\n+++ b/here.txt\n@@ -1,2 +1,2 @@\n-x\nnot a diff line\n+y\n';
    expect(await callTool(applyPatchTool, { patch }, { cwd })).toEqual({
      content: 'Error: invalid patch: Hunk at line 3 contained invalid line not a diff line',
      isError: true,
    });
    expect(await read(cwd, 'here.txt')).toBe('x\n');
  });
});

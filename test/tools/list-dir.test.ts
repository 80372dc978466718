import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createListDirTool } from '../../src/tools/builtin/list-dir.ts';
import { callTool, makeTempDir } from './tool-harness.ts';

const listDirTool = createListDirTool();

async function tree(): Promise<string> {
  const cwd = await makeTempDir();
  await mkdir(path.join(cwd, 'src/lib'), { recursive: true });
  await mkdir(path.join(cwd, 'node_modules/pkg'), { recursive: true });
  await writeFile(path.join(cwd, 'README.md'), 'hello');
  await writeFile(path.join(cwd, 'src/index.ts'), 'export {};\n');
  await writeFile(path.join(cwd, 'src/lib/util.ts'), '');
  await writeFile(path.join(cwd, 'node_modules/pkg/index.js'), 'x');
  await symlink('README.md', path.join(cwd, 'link.md'));
  return cwd;
}

describe('list_dir', () => {
  it('lists one level by default: directories first, sizes for files', async () => {
    const cwd = await tree();
    expect(await callTool(listDirTool, { path: '.' }, { cwd })).toEqual({
      content: 'node_modules/\nsrc/\nREADME.md (5 bytes)\nlink.md -> README.md',
    });
  });

  it('indents deeper levels and does not expand node_modules', async () => {
    const cwd = await tree();
    expect(await callTool(listDirTool, { path: '.', depth: 3 }, { cwd })).toEqual({
      content: [
        'node_modules/',
        'src/',
        '  lib/',
        '    util.ts (0 bytes)',
        '  index.ts (11 bytes)',
        'README.md (5 bytes)',
        'link.md -> README.md',
      ].join('\n'),
    });
    expect(await callTool(listDirTool, { path: 'src', depth: 2 }, { cwd })).toEqual({
      content: 'lib/\n  util.ts (0 bytes)\nindex.ts (11 bytes)',
    });
  });

  it('stops at maxEntries', async () => {
    const cwd = await tree();
    const small = createListDirTool({ maxEntries: 2 });
    expect(await callTool(small, { path: '.' }, { cwd })).toEqual({
      content: 'node_modules/\nsrc/\n[Listing stopped after 2 entries.]',
    });
  });

  it('reports an empty directory, a missing one and a file', async () => {
    const cwd = await tree();
    await mkdir(path.join(cwd, 'empty'));
    expect(await callTool(listDirTool, { path: 'empty' }, { cwd })).toEqual({ content: 'empty: (empty directory)' });
    expect(await callTool(listDirTool, { path: 'nowhere' }, { cwd })).toEqual({
      content: 'Error: directory not found: nowhere',
      isError: true,
    });
    expect(await callTool(listDirTool, { path: 'README.md' }, { cwd })).toEqual({
      content: 'Error: not a directory: README.md',
      isError: true,
    });
  });
});

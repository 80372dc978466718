import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createWriteFileTool } from '../../src/tools/builtin/write-file.ts';
import { callTool, makeTempDir } from './tool-harness.ts';

const writeFileTool = createWriteFileTool();

describe('write_file', () => {
  it('creates the file and its parent directories', async () => {
    const cwd = await makeTempDir();
    const output = await callTool(writeFileTool, { path: 'deep/er/new.txt', content: 'hello\n' }, { cwd });
    expect(output).toEqual({ content: 'Successfully wrote to deep/er/new.txt' });
    expect(await readFile(path.join(cwd, 'deep/er/new.txt'), 'utf8')).toBe('hello\n');
  });

  it('replaces an existing file', async () => {
    const cwd = await makeTempDir();
    await writeFile(path.join(cwd, 'a.txt'), 'old content that is longer');
    await callTool(writeFileTool, { path: 'a.txt', content: 'new' }, { cwd });
    expect(await readFile(path.join(cwd, 'a.txt'), 'utf8')).toBe('new');
  });

  it('resolves relative paths against the context working directory', async () => {
    const cwd = await makeTempDir();
    await mkdir(path.join(cwd, 'work'));
    const tool = createWriteFileTool({ cwd });
    await callTool(tool, { path: 'x.txt', content: 'x' }, { cwd: 'work' });
    expect(await readFile(path.join(cwd, 'work', 'x.txt'), 'utf8')).toBe('x');
  });

  it('reports writing over a directory as an error result', async () => {
    const cwd = await makeTempDir();
    await mkdir(path.join(cwd, 'sub'));
    expect(await callTool(writeFileTool, { path: 'sub', content: 'x' }, { cwd })).toEqual({
      content: 'Error: sub is a directory',
      isError: true,
    });
  });
});

import { mkdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGlobTool } from '../../src/tools/builtin/glob.ts';
import { callTool, makeTempDir } from './tool-harness.ts';

const globTool = createGlobTool();

/** Creates files with modification times `index` days apart, in the given order (oldest first). */
async function filesAged(cwd: string, names: string[]): Promise<void> {
  for (const [index, name] of names.entries()) {
    const file = path.join(cwd, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, name);
    const time = new Date(Date.UTC(2024, 0, 1 + index));
    await utimes(file, time, time);
  }
}

describe('glob', () => {
  it('returns absolute paths, newest first', async () => {
    const cwd = await makeTempDir();
    await filesAged(cwd, ['src/old.ts', 'src/deep/newest-but-one.ts', 'readme.md', 'src/newest.ts']);
    expect(await callTool(globTool, { pattern: '**/*.ts' }, { cwd })).toEqual({
      content: [path.join(cwd, 'src/newest.ts'), path.join(cwd, 'src/deep/newest-but-one.ts'), path.join(cwd, 'src/old.ts')].join('\n'),
    });
  });

  it('searches from path', async () => {
    const cwd = await makeTempDir();
    await filesAged(cwd, ['a/x.txt', 'b/y.txt']);
    expect(await callTool(globTool, { pattern: '*.txt', path: 'b' }, { cwd })).toEqual({ content: path.join(cwd, 'b/y.txt') });
  });

  it('skips node_modules and .git unless the pattern names them', async () => {
    const cwd = await makeTempDir();
    await filesAged(cwd, ['node_modules/pkg/index.js', '.git/hooks/x.js', 'main.js']);
    expect(await callTool(globTool, { pattern: '**/*.js' }, { cwd })).toEqual({ content: path.join(cwd, 'main.js') });
    expect(await callTool(globTool, { pattern: 'node_modules/**/*.js' }, { cwd })).toEqual({
      content: path.join(cwd, 'node_modules/pkg/index.js'),
    });
  });

  it('reports no match and a missing base', async () => {
    const cwd = await makeTempDir();
    await filesAged(cwd, ['a.txt']);
    expect(await callTool(globTool, { pattern: '*.rs' }, { cwd })).toEqual({ content: 'No files matched.' });
    expect(await callTool(globTool, { pattern: '*', path: 'missing' }, { cwd })).toEqual({
      content: 'Error: path not found: missing',
      isError: true,
    });
    expect(await callTool(globTool, { pattern: '*', path: 'a.txt' }, { cwd })).toEqual({
      content: 'Error: not a directory: a.txt',
      isError: true,
    });
  });
});

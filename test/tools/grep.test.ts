import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createGrepTool } from '../../src/tools/builtin/grep.ts';
import { callTool, makeTempDir } from './tool-harness.ts';

const grepTool = createGrepTool();

async function project(files: Record<string, string | Buffer>): Promise<string> {
  const cwd = await makeTempDir();
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(cwd, name)), { recursive: true });
    await writeFile(path.join(cwd, name), content);
  }
  return cwd;
}

describe('grep', () => {
  it('lists matches as path:line: text, files in name order', async () => {
    const cwd = await project({
      'src/b.ts': 'const x = 1;\n// TODO: later\n',
      'src/a.ts': 'TODO first\nnothing\nTODO again\r\n',
      'README.md': 'no match here\n',
    });
    expect(await callTool(grepTool, { pattern: 'TODO' }, { cwd })).toEqual({
      content: 'src/a.ts:1: TODO first\nsrc/a.ts:3: TODO again\nsrc/b.ts:2: // TODO: later',
    });
  });

  it('takes a regular expression', async () => {
    const cwd = await project({ 'a.txt': 'id=12\nid=x\nid=345\n' });
    expect(await callTool(grepTool, { pattern: '^id=\\d+$' }, { cwd })).toEqual({ content: 'a.txt:1: id=12\na.txt:3: id=345' });
  });

  it('filters files with include, at any depth when the glob has no slash', async () => {
    const cwd = await project({ 'top.ts': 'needle\n', 'deep/er/x.ts': 'needle\n', 'deep/er/x.md': 'needle\n' });
    expect(await callTool(grepTool, { pattern: 'needle', include: '*.ts' }, { cwd })).toEqual({
      content: 'deep/er/x.ts:1: needle\ntop.ts:1: needle',
    });
    expect(await callTool(grepTool, { pattern: 'needle', include: 'deep/**/*.md' }, { cwd })).toEqual({
      content: 'deep/er/x.md:1: needle',
    });
  });

  it('searches under path, or a single file, with paths relative to the working directory', async () => {
    const cwd = await project({ 'one/a.txt': 'needle\n', 'two/b.txt': 'needle\n' });
    expect(await callTool(grepTool, { pattern: 'needle', path: 'two' }, { cwd })).toEqual({ content: 'two/b.txt:1: needle' });
    expect(await callTool(grepTool, { pattern: 'needle', path: 'one/a.txt' }, { cwd })).toEqual({ content: 'one/a.txt:1: needle' });
  });

  it('skips node_modules, .git and binary files but not other dot files', async () => {
    const cwd = await project({
      'node_modules/pkg/index.js': 'needle\n',
      '.git/config': 'needle\n',
      'image.bin': Buffer.from('needle\0\x01\x02'),
      '.env.example': 'needle\n',
      'src/main.js': 'needle\n',
    });
    expect(await callTool(grepTool, { pattern: 'needle' }, { cwd })).toEqual({
      content: '.env.example:1: needle\nsrc/main.js:1: needle',
    });
  });

  it('stops at max_results and says there are more', async () => {
    const cwd = await project({ 'a.txt': 'hit\n'.repeat(5), 'b.txt': 'hit\n' });
    expect(await callTool(grepTool, { pattern: 'hit', max_results: 3 }, { cwd })).toEqual({
      content: 'a.txt:1: hit\na.txt:2: hit\na.txt:3: hit\n[Showing the first 3 matches; there are more.]',
    });
    expect(await callTool(grepTool, { pattern: 'hit', max_results: 6 }, { cwd })).toEqual({
      content: 'a.txt:1: hit\na.txt:2: hit\na.txt:3: hit\na.txt:4: hit\na.txt:5: hit\nb.txt:1: hit',
    });
  });

  it('defaults to 100 results', async () => {
    const cwd = await project({ 'a.txt': 'hit\n'.repeat(150) });
    const output = await callTool(grepTool, { pattern: 'hit' }, { cwd });
    const lines = String(output.content).split('\n');
    expect(lines).toHaveLength(101);
    expect(lines[99]).toBe('a.txt:100: hit');
  });

  it('shortens very long matching lines', async () => {
    const cwd = await project({ 'min.js': `${'x'.repeat(2000)}needle\n` });
    expect(await callTool(grepTool, { pattern: 'needle' }, { cwd })).toEqual({
      content: `min.js:1: ${'x'.repeat(1000)} [... line truncated]`,
    });
  });

  it('reports no matches, a bad pattern and a missing path', async () => {
    const cwd = await project({ 'a.txt': 'text\n' });
    expect(await callTool(grepTool, { pattern: 'absent' }, { cwd })).toEqual({ content: 'No matches found.' });
    const bad = await callTool(grepTool, { pattern: '(' }, { cwd });
    expect(bad.isError).toBe(true);
    expect(bad.content).toMatch(/^Error: invalid regular expression: /);
    expect(await callTool(grepTool, { pattern: 'x', path: 'missing' }, { cwd })).toEqual({
      content: 'Error: path not found: missing',
      isError: true,
    });
  });
});

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRulesLoader, maxRulesFileBytes } from '../../src/resources/rules.ts';
import { makeTempDir, writeTree } from './temp-tree.ts';

async function places(): Promise<{ cwd: string; home: string }> {
  const root = await makeTempDir();
  return { cwd: path.join(root, 'project'), home: path.join(root, 'home') };
}

describe('createRulesLoader', () => {
  it('joins project, personal and legacy rules in that order', async () => {
    const { cwd, home } = await places();
    await writeTree(cwd, { '.operator/rules.md': '# Project\nUse pnpm.\n', '.agent/rules.md': '\nLegacy rule\n' });
    await writeTree(home, { 'rules.md': 'Answer in English.' });
    expect(await createRulesLoader({ cwd, home }).get()).toEqual({
      text: '# Project\nUse pnpm.\n\n---\n\nAnswer in English.\n\n---\n\nLegacy rule',
      files: [path.join(cwd, '.operator/rules.md'), path.join(home, 'rules.md'), path.join(cwd, '.agent/rules.md')],
      problems: [],
    });
  });

  it('skips missing, empty and whitespace-only files', async () => {
    const { cwd, home } = await places();
    await writeTree(cwd, { '.operator/rules.md': '', '.agent/rules.md': 'only this' });
    await writeTree(home, { 'rules.md': ' \n\t\n' });
    expect(await createRulesLoader({ cwd, home }).get()).toEqual({
      text: 'only this',
      files: [path.join(cwd, '.agent/rules.md')],
      problems: [],
    });
    expect(await createRulesLoader({ cwd: path.join(cwd, 'nowhere'), home: path.join(home, 'nowhere') }).get()).toEqual({
      text: '',
      files: [],
      problems: [],
    });
  });

  it('reports an unreadable rules file and still loads the others', async () => {
    const { cwd, home } = await places();
    await mkdir(path.join(cwd, '.operator/rules.md'), { recursive: true });
    await writeTree(home, { 'rules.md': 'still here' });
    expect(await createRulesLoader({ cwd, home }).get()).toEqual({
      text: 'still here',
      files: [path.join(home, 'rules.md')],
      problems: [{ file: path.join(cwd, '.operator/rules.md'), message: 'is a directory, not a file' }],
    });
  });

  it('reads malformed UTF-8 with replacement characters', async () => {
    const { cwd, home } = await places();
    await writeTree(home, { 'rules.md': Buffer.from([0x6e, 0x61, 0xef, 0x76, 0x65]) });
    expect((await createRulesLoader({ cwd, home }).get()).text).toBe('na\uFFFDve');
  });

  it('cuts a huge rules file with a visible notice', async () => {
    const { cwd, home } = await places();
    await writeTree(home, { 'rules.md': 'r'.repeat(maxRulesFileBytes + 10) });
    const rules = await createRulesLoader({ cwd, home }).get();
    const message = `the file is ${maxRulesFileBytes + 10} bytes; only the first ${maxRulesFileBytes} were used`;
    expect(rules.text).toBe(`${'r'.repeat(maxRulesFileBytes)}\n\n[rules cut: ${message}]`);
    expect(rules.problems).toEqual([{ file: path.join(home, 'rules.md'), message }]);
  });

  it('reads nothing before the first get, then keeps the result until reset', async () => {
    const { cwd, home } = await places();
    const loader = createRulesLoader({ cwd, home });
    // Written after the loader exists: a loader that read eagerly would have seen nothing.
    await writeTree(home, { 'rules.md': 'first' });
    const first = loader.get();
    expect(loader.get()).toBe(first);
    expect((await first).text).toBe('first');
    await writeFile(path.join(home, 'rules.md'), 'second');
    expect((await loader.get()).text).toBe('first');
    loader.reset();
    expect((await loader.get()).text).toBe('second');
  });

  it('counts a file reached by two of the paths once', async () => {
    const { cwd } = await places();
    await writeTree(cwd, { '.operator/rules.md': 'once' });
    const rules = await createRulesLoader({ cwd, home: path.join(cwd, '.operator') }).get();
    expect(rules).toEqual({ text: 'once', files: [path.join(cwd, '.operator/rules.md')], problems: [] });
  });
});

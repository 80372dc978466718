import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MemoryError, MemoryFile, writeFileAtomic } from '../../src/memory/index.ts';
import { makeTempDir } from '../tools/tool-harness.ts';

const march = () => new Date('2026-03-01T12:00:00Z');

async function openIn(limit = 2200, name = 'MEMORY.md') {
  const folder = await makeTempDir();
  const file = path.join(folder, 'profiles', 'team', name);
  return { folder, file, memory: await MemoryFile.open(file, { limit, now: march }) };
}

describe('MemoryFile', () => {
  it('adds entries, creating folders, and counts the characters of entries', async () => {
    const { file, memory } = await openIn();
    expect(memory.entries).toEqual([]);
    const change = await memory.add('Deploys go through #releases');
    expect(change).toEqual({ entry: 'Deploys go through #releases', previous: undefined, archived: [], used: 28, limit: 2200 });
    await memory.add('Staging is rebuilt nightly;\n\ndata there does not survive.  ');
    expect(await readFile(file, 'utf8')).toBe('- Deploys go through #releases\n- Staging is rebuilt nightly;\n  data there does not survive.\n');
    expect(memory.entries).toEqual(['Deploys go through #releases', 'Staging is rebuilt nightly;\ndata there does not survive.']);
    expect(memory.used).toBe(28 + 56);
  });

  it('replaces and removes the one entry containing the old text (whitespace-insensitive)', async () => {
    const { file, memory } = await openIn();
    await memory.add('Alice owns billing');
    await memory.add('Bob is on call this week');
    const replaced = await memory.replace('Bob  is on', 'Carol is on call this week');
    expect(replaced.previous).toBe('Bob is on call this week');
    expect(replaced.entry).toBe('Carol is on call this week');
    const removed = await memory.remove('owns billing');
    expect(removed.previous).toBe('Alice owns billing');
    expect(await readFile(file, 'utf8')).toBe('- Carol is on call this week\n');
  });

  it('says precisely when old text matches no entry or several', async () => {
    const { memory } = await openIn();
    await memory.add('Alice owns billing');
    await memory.add('Alice owns the deploy scripts');
    await memory.add('Bob owns search');
    await expect(memory.remove('Dave')).rejects.toThrow(new MemoryError('no entry of MEMORY.md contains "Dave"'));
    await expect(memory.replace('Alice owns', 'x')).rejects.toThrow(
      '"Alice owns" matches 2 entries of MEMORY.md: "Alice owns billing", "Alice owns the deploy scripts"; ' +
        'give a longer old_text that occurs in only one of them',
    );
    await expect(memory.remove('   ')).rejects.toThrow('old_text is empty');
    expect(memory.entries).toHaveLength(3);
  });

  it('refuses exact duplicates (after whitespace normalization) and empty entries', async () => {
    const { memory } = await openIn();
    await memory.add('Alice owns billing');
    await expect(memory.add('  Alice   owns\nbilling ')).rejects.toThrow('MEMORY.md already has this exact entry: "Alice   owns\nbilling"');
    await memory.add('Bob owns search');
    await expect(memory.replace('Bob', 'Alice owns billing')).rejects.toThrow('already has this exact entry');
    await expect(memory.add(' \n ')).rejects.toThrow('the entry is empty');
    expect(memory.entries).toEqual(['Alice owns billing', 'Bob owns search']);
  });

  it('acts on the first of identical hand-made duplicates', async () => {
    const { file, memory } = await openIn();
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, '- same fact\n- other\n- same  fact\n');
    await memory.remove('same');
    expect(await readFile(file, 'utf8')).toBe('- other\n- same  fact\n');
  });

  it('moves the oldest entries to a dated archive when an add would pass the limit', async () => {
    const { file, memory } = await openIn(30);
    await memory.add('aaaaaaaaaa'); // 10
    await memory.add('bbbbbbbbbb'); // 20
    await memory.add('cccccccccc'); // 30: full, still fits
    const change = await memory.add('dddddddddddddddddddd'); // 20 more: a and b must go
    expect(change.archived).toEqual(['aaaaaaaaaa', 'bbbbbbbbbb']);
    expect(change.used).toBe(30);
    expect(memory.entries).toEqual(['cccccccccc', 'dddddddddddddddddddd']);
    const archive = path.join(path.dirname(file), 'MEMORY.archive.md');
    expect(await readFile(archive, 'utf8')).toBe('## Archived 2026-03-01\n\n- aaaaaaaaaa\n- bbbbbbbbbb\n');
    await memory.add('eeeeeeeeeeeeeeeeeeee');
    expect(memory.entries).toEqual(['eeeeeeeeeeeeeeeeeeee']);
    expect(await readFile(archive, 'utf8')).toBe(
      '## Archived 2026-03-01\n\n- aaaaaaaaaa\n- bbbbbbbbbb\n\n## Archived 2026-03-01\n\n- cccccccccc\n- dddddddddddddddddddd\n',
    );
  });

  it('archives other entries when a replacement grows, never the replaced one', async () => {
    const { memory } = await openIn(25, 'USER.md');
    await memory.add('first entry');
    await memory.add('second');
    const change = await memory.replace('second', 'second, now much longer');
    expect(change.archived).toEqual(['first entry']);
    expect(memory.entries).toEqual(['second, now much longer']);
    expect(memory.archivePath.endsWith('USER.archive.md')).toBe(true);
  });

  it('refuses an entry longer than the whole limit and changes nothing', async () => {
    const { file, memory } = await openIn(20);
    await memory.add('short');
    await expect(memory.add('x'.repeat(21))).rejects.toThrow('the entry is 21 characters, more than the whole limit of 20 of MEMORY.md; shorten it');
    expect(await readFile(file, 'utf8')).toBe('- short\n');
    await expect(readdir(path.join(path.dirname(file)))).resolves.toEqual(['MEMORY.md']);
  });

  it('re-reads the file before every change, so hand edits survive', async () => {
    const { file, memory } = await openIn();
    await memory.add('written by the tool');
    await writeFile(file, '# Team memory\n\nEdited by hand.\n- written by the tool, corrected\n- added by a person\n');
    await memory.add('added by the tool');
    expect(await readFile(file, 'utf8')).toBe(
      '# Team memory\n\nEdited by hand.\n- written by the tool, corrected\n- added by a person\n- added by the tool\n',
    );
    await memory.remove('a person');
    expect(memory.entries).toEqual(['written by the tool, corrected', 'added by the tool']);
    expect(memory.text).toBe('# Team memory\n\nEdited by hand.\n- written by the tool, corrected\n- added by the tool\n');
  });

  it('serializes concurrent adds: none is lost, whether kept or archived', async () => {
    const { file } = await openIn(200);
    const texts = Array.from({ length: 20 }, (_, index) => `fact number ${String(index).padStart(2, '0')}`); // 14 chars each
    const instances = await Promise.all(texts.map(() => MemoryFile.open(file, { limit: 200 })));
    const changes = await Promise.all(texts.map((text, index) => instances[index]!.add(text)));
    const kept = (await MemoryFile.open(file, { limit: 200 })).entries;
    const archived = changes.flatMap((change) => change.archived);
    expect(kept.length).toBeGreaterThan(0);
    expect(archived.length).toBeGreaterThan(0);
    expect([...kept, ...archived].sort()).toEqual(texts);
    const archive = await readFile(path.join(path.dirname(file), 'MEMORY.archive.md'), 'utf8');
    for (const text of archived) expect(archive).toContain(`- ${text}\n`);
  });

  it('leaves no temp files behind', async () => {
    const { file, memory } = await openIn(30);
    for (const text of ['one entry here', 'two entry here', 'three entry here']) await memory.add(text);
    await memory.remove('two');
    expect((await readdir(path.dirname(file))).sort()).toEqual(['MEMORY.archive.md', 'MEMORY.md']);
  });
});

describe('writeFileAtomic', () => {
  it('replaces the file whole and removes its temp file when the rename fails', async () => {
    const folder = await makeTempDir();
    const file = path.join(folder, 'a', 'b.md');
    await writeFileAtomic(file, 'one');
    await writeFileAtomic(file, 'two');
    expect(await readFile(file, 'utf8')).toBe('two');
    await mkdir(path.join(folder, 'dir'));
    await expect(writeFileAtomic(path.join(folder, 'dir'), 'x')).rejects.toThrow();
    expect((await readdir(folder)).sort()).toEqual(['a', 'dir']);
    expect(await readdir(path.join(folder, 'a'))).toEqual(['b.md']);
  });
});

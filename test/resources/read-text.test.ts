import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { characterBoundary, readTextFile } from '../../src/resources/read-text.ts';
import { makeTempDir } from './temp-tree.ts';

async function fileWith(content: string | Uint8Array): Promise<string> {
  const file = path.join(await makeTempDir(), 'file.md');
  await writeFile(file, content);
  return file;
}

describe('readTextFile', () => {
  it('reads UTF-8 text and drops a byte-order mark', async () => {
    const file = await fileWith(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('héllo ✓\n')]));
    expect(readTextFile(file, { maxBytes: 1024 })).toEqual({ text: 'héllo ✓\n', truncated: false, bytes: 14 });
  });

  it('replaces malformed bytes with U+FFFD instead of failing', async () => {
    const file = await fileWith(Buffer.from([0x61, 0xff, 0x62, 0xc3, 0x28, 0x63, 0xe2, 0x82]));
    expect(readTextFile(file, { maxBytes: 1024 })).toEqual({ text: 'a\uFFFDb\uFFFD(c\uFFFD', truncated: false, bytes: 8 });
  });

  it('reads a file of exactly maxBytes whole', async () => {
    const file = await fileWith('abcd');
    expect(readTextFile(file, { maxBytes: 4 })).toEqual({ text: 'abcd', truncated: false, bytes: 4 });
  });

  it('cuts a bigger file at the cap without splitting a character', async () => {
    // a (1 byte) é (2 bytes) 😀 (4 bytes) z
    const file = await fileWith('aé😀z');
    const cuts = [1, 2, 3, 4, 5, 6, 7].map((maxBytes) => readTextFile(file, { maxBytes }));
    expect(cuts.map((cut) => ('text' in cut ? cut.text : cut.problem.message))).toEqual([
      'a',
      'a',
      'aé',
      'aé',
      'aé',
      'aé',
      'aé😀',
    ]);
    expect(cuts.every((cut) => 'truncated' in cut && cut.truncated && cut.bytes === 8)).toBe(true);
  });

  it('reads a file far bigger than the cap only up to the cap', async () => {
    const file = await fileWith('x'.repeat(200_000));
    const read = readTextFile(file, { maxBytes: 100 });
    expect(read).toEqual({ text: 'x'.repeat(100), truncated: true, bytes: 200_000 });
  });

  it('turns a missing file, a directory and a FIFO into problems naming the file', async () => {
    const root = await makeTempDir();
    const missing = path.join(root, 'nope.md');
    expect(readTextFile(missing, { maxBytes: 10 })).toEqual({ problem: { file: missing, message: 'file not found' }, missing: true });
    const below = path.join(root, 'nope', 'deeper.md');
    expect(readTextFile(below, { maxBytes: 10 })).toMatchObject({ missing: true });
    const folder = path.join(root, 'folder.md');
    await mkdir(folder);
    expect(readTextFile(folder, { maxBytes: 10 })).toEqual({ problem: { file: folder, message: 'is a directory, not a file' } });
    const fifo = path.join(root, 'pipe.md');
    execFileSync('mkfifo', [fifo]);
    expect(readTextFile(fifo, { maxBytes: 10 })).toEqual({ problem: { file: fifo, message: 'is not a regular file' } });
  });

  it('reports a parent that is a file as missing', async () => {
    const file = await fileWith('x');
    expect(readTextFile(path.join(file, 'child.md'), { maxBytes: 10 })).toMatchObject({ missing: true });
  });
});

describe('characterBoundary', () => {
  const bytes = Buffer.from('aé😀');
  it('keeps an end that falls between characters', () => {
    expect([0, 1, 3, 7].map((end) => characterBoundary(bytes, end))).toEqual([0, 1, 3, 7]);
  });
  it('moves an end inside a character back to its start', () => {
    expect([2, 4, 5, 6].map((end) => characterBoundary(bytes, end))).toEqual([1, 3, 3, 3]);
  });
  it('leaves malformed bytes alone (they decode to replacement characters)', () => {
    expect(characterBoundary(Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80]), 5)).toBe(5);
  });
});

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createReadFileTool } from '../../src/tools/builtin/read-file.ts';
import { callTool, makeTempDir } from './tool-harness.ts';

const readFileTool = createReadFileTool();

/** A 1x1 PNG. */
const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);

describe('read_file', () => {
  it('numbers lines like cat -n', async () => {
    const cwd = await makeTempDir();
    await writeFile(path.join(cwd, 'a.txt'), 'one\ntwo\n\tthree\n');
    expect(await callTool(readFileTool, { path: 'a.txt' }, { cwd })).toEqual({
      content: '     1\tone\n     2\ttwo\n     3\t\tthree',
    });
  });

  it('reads a window with offset and limit', async () => {
    const cwd = await makeTempDir();
    const lines = Array.from({ length: 20 }, (_, index) => `line ${index + 1}`);
    await writeFile(path.join(cwd, 'a.txt'), lines.join('\n'));
    expect(await callTool(readFileTool, { path: 'a.txt', offset: 10, limit: 3 }, { cwd })).toEqual({
      content: '    10\tline 10\n    11\tline 11\n    12\tline 12',
    });
    expect(await callTool(readFileTool, { path: 'a.txt', offset: 19 }, { cwd })).toEqual({
      content: '    19\tline 19\n    20\tline 20',
    });
  });

  it('accepts absolute paths and CRLF files', async () => {
    const cwd = await makeTempDir();
    const file = path.join(cwd, 'windows.txt');
    await writeFile(file, 'first\r\nsecond\r\n');
    expect(await callTool(readFileTool, { path: file }, { cwd: '/' })).toEqual({ content: '     1\tfirst\n     2\tsecond' });
  });

  it('reports a missing file', async () => {
    const cwd = await makeTempDir();
    expect(await callTool(readFileTool, { path: 'nope.txt' }, { cwd })).toEqual({
      content: 'Error: file not found: nope.txt',
      isError: true,
    });
  });

  it('reports a directory, an empty file and an offset past the end', async () => {
    const cwd = await makeTempDir();
    await mkdir(path.join(cwd, 'sub'));
    await writeFile(path.join(cwd, 'empty.txt'), '');
    await writeFile(path.join(cwd, 'short.txt'), 'a\nb\n');
    expect(await callTool(readFileTool, { path: 'sub' }, { cwd })).toEqual({ content: 'Error: sub is a directory', isError: true });
    expect(await callTool(readFileTool, { path: 'empty.txt' }, { cwd })).toEqual({ content: 'empty.txt: (empty file)' });
    expect(await callTool(readFileTool, { path: 'short.txt', offset: 5 }, { cwd })).toEqual({
      content: 'Error: offset 5 is past the end of short.txt (2 lines)',
      isError: true,
    });
  });

  it('rejects offset 0 in the schema (offsets are 1-based)', () => {
    expect(readFileTool.parameters.safeParse({ path: 'a', offset: 0 }).success).toBe(false);
  });

  it('returns images as image parts', async () => {
    const cwd = await makeTempDir();
    await writeFile(path.join(cwd, 'dot.png'), png);
    expect(await callTool(readFileTool, { path: 'dot.png' }, { cwd })).toEqual({
      content: [
        { type: 'text', text: `Image dot.png (image/png, ${png.length} bytes)` },
        { type: 'image', data: png.toString('base64'), mediaType: 'image/png' },
      ],
    });
  });

  it('recognizes JPEG, GIF and WebP by their bytes, not their names', async () => {
    const cwd = await makeTempDir();
    const samples: [string, Buffer][] = [
      ['image/jpeg', Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0, 0x10])],
      ['image/gif', Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1')],
      ['image/webp', Buffer.concat([Buffer.from('RIFF'), Buffer.from([4, 0, 0, 0]), Buffer.from('WEBPVP8 ')])],
    ];
    for (const [mediaType, bytes] of samples) {
      await writeFile(path.join(cwd, 'picture.bin'), bytes);
      const output = await callTool(readFileTool, { path: 'picture.bin' }, { cwd });
      expect(output.content).toContainEqual({ type: 'image', data: bytes.toString('base64'), mediaType });
    }
  });

  it('refuses images over the size limit and binary files', async () => {
    const cwd = await makeTempDir();
    await writeFile(path.join(cwd, 'dot.png'), png);
    await writeFile(path.join(cwd, 'data.bin'), Buffer.from([1, 2, 0, 3]));
    const small = createReadFileTool({ maxImageBytes: 10 });
    expect(await callTool(small, { path: 'dot.png' }, { cwd })).toEqual({
      content: `Error: image dot.png is ${png.length} bytes, more than the 10 bytes allowed`,
      isError: true,
    });
    expect(await callTool(readFileTool, { path: 'data.bin' }, { cwd })).toEqual({
      content: 'Error: data.bin is a binary file',
      isError: true,
    });
  });

  it('asks for offset and limit on a text file over the size limit', async () => {
    const cwd = await makeTempDir();
    await writeFile(path.join(cwd, 'big.log'), 'x\n'.repeat(100));
    const small = createReadFileTool({ maxTextBytes: 50 });
    expect(await callTool(small, { path: 'big.log' }, { cwd })).toEqual({
      content: 'Error: big.log is 200 bytes; read it in parts with offset and limit',
      isError: true,
    });
    expect(await callTool(small, { path: 'big.log', offset: 100, limit: 5 }, { cwd })).toEqual({ content: '   100\tx' });
  });
});

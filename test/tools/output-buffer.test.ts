import { describe, expect, it } from 'vitest';
import { OutputBuffer } from '../../src/tools/builtin/output-buffer.ts';

describe('OutputBuffer', () => {
  it('keeps everything under the limit', () => {
    const buffer = new OutputBuffer(10);
    buffer.append('abc');
    buffer.append('defg');
    expect(buffer.toString()).toBe('abcdefg');
  });

  it('keeps the start and the end and counts the middle', () => {
    const buffer = new OutputBuffer(6);
    for (const piece of ['ab', 'cd', 'ef', 'gh', 'ij', 'kl']) buffer.append(piece);
    expect(buffer.toString()).toBe('abc\n[... 6 characters of output omitted ...]\njkl');
    expect(buffer.toString()).toBe('abc\n[... 6 characters of output omitted ...]\njkl');
  });

  it('handles one piece far larger than the limit', () => {
    const buffer = new OutputBuffer(4);
    buffer.append('0123456789');
    expect(buffer.toString()).toBe('01\n[... 6 characters of output omitted ...]\n89');
  });
});

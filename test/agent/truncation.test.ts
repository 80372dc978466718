import { describe, expect, it } from 'vitest';
import {
  defaultTruncationConfig,
  fallbackCharLimit,
  mergeTruncationConfig,
  truncateOutput,
} from '../../src/agent/truncation.ts';
import type { TruncationConfig } from '../../src/agent/truncation.ts';

const config = (charLimit: number, mode: 'head_tail' | 'tail', lineLimit?: number): TruncationConfig => ({
  charLimits: { tool: charLimit },
  modes: { tool: mode },
  lineLimits: lineLimit === undefined ? {} : { tool: lineLimit },
});

const numberedLines = (count: number) => Array.from({ length: count }, (_, index) => `line ${index + 1}`);

describe('truncateOutput, stage 1 (characters)', () => {
  it('leaves output within the limit alone', () => {
    expect(truncateOutput('tool', '0123456789', config(10, 'head_tail'))).toEqual({ text: '0123456789', truncated: false });
  });

  it('head_tail keeps both halves and marks the middle', () => {
    expect(truncateOutput('tool', 'abcdefghijKLMNOPQRST', config(10, 'head_tail'))).toEqual({
      text: 'abcde\n\n[WARNING: Tool output was truncated. 10 characters were removed from the middle.]\n\nPQRST',
      truncated: true,
    });
  });

  it('head_tail with an odd limit keeps the extra character at the end', () => {
    expect(truncateOutput('tool', 'abcdefghij', config(5, 'head_tail')).text).toBe(
      'ab\n\n[WARNING: Tool output was truncated. 5 characters were removed from the middle.]\n\nhij',
    );
  });

  it('tail keeps the end and marks the start', () => {
    expect(truncateOutput('tool', 'abcdefghijKLMNOPQRST', config(10, 'tail'))).toEqual({
      text: '[WARNING: Tool output was truncated. First 10 characters were removed.]\n\nKLMNOPQRST',
      truncated: true,
    });
  });

  it('does not split a surrogate pair', () => {
    // Cut points fall inside the emoji; the whole emoji goes rather than half of it.
    const text = 'ab😀cd😀ef';
    const headTail = truncateOutput('tool', text, config(5, 'head_tail')).text;
    expect(headTail).toBe('ab\n\n[WARNING: Tool output was truncated. 6 characters were removed from the middle.]\n\nef');
    const tail = truncateOutput('tool', 'ab😀cdef', config(5, 'tail')).text;
    expect(tail).toBe('[WARNING: Tool output was truncated. First 4 characters were removed.]\n\ncdef');
  });

  it('uses the spec defaults', () => {
    const write = truncateOutput('write_file', 'w'.repeat(1_500));
    expect(write.text).toBe(`[WARNING: Tool output was truncated. First 500 characters were removed.]\n\n${'w'.repeat(1_000)}`);
    expect(truncateOutput('read_file', 'r'.repeat(50_000)).truncated).toBe(false);
    expect(truncateOutput('read_file', 'r'.repeat(50_001)).text).toBe(
      `${'r'.repeat(25_000)}\n\n[WARNING: Tool output was truncated. 1 characters were removed from the middle.]\n\n${'r'.repeat(25_000)}`,
    );
    expect(truncateOutput('edit_file', 'e'.repeat(10_001)).text).toMatch(/^\[WARNING: Tool output was truncated\. First 1 characters/);
    expect(truncateOutput('apply_patch', 'p'.repeat(10_001)).truncated).toBe(true);
    expect(truncateOutput('spawn_agent', 's'.repeat(20_001)).text).toContain('1 characters were removed from the middle.');
  });

  it('falls back to 30,000 head_tail for unknown tools', () => {
    expect(fallbackCharLimit).toBe(30_000);
    expect(truncateOutput('custom', 'c'.repeat(30_000)).truncated).toBe(false);
    expect(truncateOutput('custom', 'c'.repeat(30_010)).text).toContain('10 characters were removed from the middle.');
  });

  it('is linear on multi-megabyte output', () => {
    const huge = 'x'.repeat(8_000_000);
    const result = truncateOutput('shell', huge);
    expect(result.text.startsWith('x'.repeat(15_000))).toBe(true);
    expect(result.text).toContain('7970000 characters were removed from the middle.');
  });
});

describe('truncateOutput, stage 2 (lines)', () => {
  it('head_tail keeps the first and last lines and marks the middle', () => {
    const text = numberedLines(10).join('\n');
    expect(truncateOutput('tool', text, config(1_000, 'head_tail', 4))).toEqual({
      text: 'line 1\nline 2\n\n[WARNING: Tool output was truncated. 6 lines were removed from the middle.]\n\nline 9\nline 10',
      truncated: true,
    });
  });

  it('tail keeps the last lines and marks the start', () => {
    const text = `${numberedLines(10).join('\n')}\n`;
    expect(truncateOutput('tool', text, config(1_000, 'tail', 3))).toEqual({
      text: '[WARNING: Tool output was truncated. First 7 lines were removed.]\n\nline 8\nline 9\nline 10\n',
      truncated: true,
    });
  });

  it('does not count a final newline as a line', () => {
    const text = `${numberedLines(3).join('\n')}\n`;
    expect(truncateOutput('tool', text, config(1_000, 'tail', 3))).toEqual({ text, truncated: false });
  });

  it('uses the spec line limits: shell 256, grep 200, glob and list_dir 500, none for read_file', () => {
    const shell = truncateOutput('shell', numberedLines(300).join('\n')).text.split('\n');
    expect(shell.slice(0, 128)).toEqual(numberedLines(128));
    expect(shell[129]).toBe('[WARNING: Tool output was truncated. 44 lines were removed from the middle.]');
    expect(shell.slice(131)).toEqual(numberedLines(300).slice(-128));

    expect(truncateOutput('grep', numberedLines(250).join('\n')).text).toBe(
      `[WARNING: Tool output was truncated. First 50 lines were removed.]\n\n${numberedLines(250).slice(50).join('\n')}`,
    );
    expect(truncateOutput('glob', numberedLines(500).join('\n')).truncated).toBe(false);
    expect(truncateOutput('glob', numberedLines(501).join('\n')).text).toMatch(/^\[WARNING: Tool output was truncated\. First 1 lines/);
    expect(truncateOutput('list_dir', numberedLines(501).join('\n')).truncated).toBe(true);
    expect(truncateOutput('read_file', numberedLines(5_000).join('\n').slice(0, 50_000)).truncated).toBe(false);
  });

  it('applies line limits after the character limit', () => {
    // Stage 1 leaves its marker, a blank line, part of row 0018 and rows 0019-0029: 14 lines, of
    // which stage 2 removes the first 9 (the stage 1 marker among them) to keep 5.
    const text = Array.from({ length: 30 }, (_, index) => `row ${String(index).padStart(4, '0')}`).join('\n');
    const stage1 = truncateOutput('tool', text, config(100, 'tail')).text;
    expect(stage1.split('\n')).toHaveLength(14);
    expect(truncateOutput('tool', text, config(100, 'tail', 5)).text).toBe(
      '[WARNING: Tool output was truncated. First 9 lines were removed.]\n\nrow 0025\nrow 0026\nrow 0027\nrow 0028\nrow 0029',
    );
  });
});

describe('mergeTruncationConfig', () => {
  it('lays overrides over the defaults tool by tool without changing them', () => {
    const merged = mergeTruncationConfig({ charLimits: { shell: 5 }, modes: { my_tool: 'tail' }, lineLimits: { read_file: 10 } });
    expect(merged.charLimits.shell).toBe(5);
    expect(merged.charLimits.read_file).toBe(50_000);
    expect(merged.modes.my_tool).toBe('tail');
    expect(merged.modes.shell).toBe('head_tail');
    expect(merged.lineLimits).toEqual({ shell: 256, grep: 200, glob: 500, list_dir: 500, read_file: 10 });
    expect(defaultTruncationConfig.charLimits.shell).toBe(30_000);
    expect(truncateOutput('shell', 'abcdefgh', merged).text).toBe(
      'ab\n\n[WARNING: Tool output was truncated. 3 characters were removed from the middle.]\n\nfgh',
    );
  });

  it('returns the defaults when given nothing', () => {
    expect(mergeTruncationConfig()).toEqual(defaultTruncationConfig);
  });
});

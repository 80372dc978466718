import { describe, expect, it } from 'vitest';
import { comparisonKey, normalizeEntry, parseMemory, renderMemory } from '../../src/memory/index.ts';

const handWritten = [
  '# Memory',
  '',
  'Facts the bot keeps.',
  '- Deploys go through #releases',
  '- Staging is rebuilt nightly;',
  '  data there does not survive.',
  '',
  '## People',
  '* not an entry',
  '- Alice owns billing',
].join('\n');

describe('memory document', () => {
  it('keeps text before, between and after entries verbatim and reads continuation lines', () => {
    const segments = parseMemory(`${handWritten}\n`);
    expect(segments).toEqual([
      { kind: 'text', lines: ['# Memory', '', 'Facts the bot keeps.'] },
      { kind: 'entry', text: 'Deploys go through #releases' },
      { kind: 'entry', text: 'Staging is rebuilt nightly;\ndata there does not survive.' },
      { kind: 'text', lines: ['', '## People', '* not an entry'] },
      { kind: 'entry', text: 'Alice owns billing' },
    ]);
    expect(renderMemory(segments)).toBe(`${handWritten}\n`);
  });

  it('treats a bare dash, an indented line after text and CRLF line ends sensibly', () => {
    expect(parseMemory('-\n  indented text\r\n- a\r\n  b\r\n')).toEqual([
      { kind: 'text', lines: ['-', '  indented text'] },
      { kind: 'entry', text: 'a\nb' },
    ]);
  });

  it('renders entries with two-space continuation lines and round-trips them', () => {
    const text = renderMemory([{ kind: 'entry', text: 'first\n  deeper\n- dash inside' }]);
    expect(text).toBe('- first\n    deeper\n  - dash inside\n');
    expect(parseMemory(text)).toEqual([{ kind: 'entry', text: 'first\n  deeper\n- dash inside' }]);
  });

  it('normalizes entries: trailing spaces and blank lines dropped, trimmed', () => {
    expect(normalizeEntry('  a  \r\n\r\n  b \n\n')).toBe('a\n  b');
    expect(normalizeEntry('- a fact\n- with a dash')).toBe('a fact\n- with a dash');
    expect(comparisonKey(' a\n  b\tc ')).toBe('a b c');
  });

  it('renders an empty file as nothing', () => {
    expect(parseMemory('')).toEqual([]);
    expect(renderMemory([])).toBe('');
  });
});

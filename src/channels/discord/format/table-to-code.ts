/**
 * A Markdown table as Discord can show it: Discord renders no tables, so the table becomes a
 * code block of aligned columns (inline markup dropped from the cells, links reduced to their
 * text), which keeps its shape in the monospaced font.
 */
import type { Tokens } from 'marked';

/** A cell's text without inline markup. */
function plainCell(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/(\*\*|__|~~|`)/g, '')
    .replace(/\\([\\`*_{}[\]()#+\-.!|])/g, '$1')
    .trim();
}

function pad(text: string, width: number, align: Tokens.TableCell['align']): string {
  const gap = width - Array.from(text).length;
  if (gap <= 0) return text;
  if (align === 'right') return ' '.repeat(gap) + text;
  if (align === 'center') return ' '.repeat(Math.floor(gap / 2)) + text + ' '.repeat(Math.ceil(gap / 2));
  return text + ' '.repeat(gap);
}

/** The table as a fenced code block (with the blank lines that followed it in the source). */
export function tableToCode(table: Tokens.Table): string {
  const header = table.header.map((cell) => plainCell(cell.text));
  const rows = table.rows.map((row) => row.map((cell) => plainCell(cell.text)));
  const widths = header.map((cell, column) => Math.max(Array.from(cell).length, 3, ...rows.map((row) => Array.from(row[column] ?? '').length)));
  const line = (cells: string[]) => cells.map((cell, column) => pad(cell, widths[column]!, table.align[column] ?? null)).join('  ').trimEnd();
  const rule = widths.map((width) => '-'.repeat(width)).join('  ');
  const body = [line(header), rule, ...rows.map(line)].join('\n').replace(/```/g, '`\u200b``');
  const trailing = /\n*$/.exec(table.raw)?.[0] ?? '';
  return `\`\`\`\n${body}\n\`\`\`${trailing}`;
}

/**
 * Markdown tables for the terminal: columns padded to their widest cell and aligned as the
 * delimiter row says. With colour the header is bold and the rules are faint box-drawing lines;
 * without, it stays a pipe table that reads well as plain text.
 */
import type { Tokens } from 'marked';
import { renderTerminalInline } from './terminal-markdown-inline.ts';
import { displayWidth } from './terminal-text.ts';
import type { TerminalStyle } from './terminal-style.ts';

type Alignment = Tokens.Table['align'][number];

/** Renders a table token as lines of text (no final newline). */
export function renderTerminalTable(table: Tokens.Table, style: TerminalStyle): string {
  const cell = (tableCell: Tokens.TableCell) => renderTerminalInline(tableCell.tokens, style).replace(/\s*\n\s*/g, ' ');
  const header = table.header.map(cell);
  const rows = table.rows.map((row) => row.map(cell));
  const columns = header.length;
  const widths = header.map((_, column) => Math.max(1, ...[header, ...rows].map((row) => displayWidth(row[column] ?? ''))));
  const line = (cells: string[]) => {
    const padded = widths.map((width, column) => pad(cells[column] ?? '', width, table.align[column] ?? null));
    return style.color ? padded.join(style.faint(' │ ')) : `| ${padded.join(' | ')} |`;
  };
  const rule = style.color
    ? style.faint(widths.map((width) => '─'.repeat(width)).join('─┼─'))
    : `|${widths.map((width, column) => delimiter(width, table.align[column] ?? null)).join('|')}|`;
  const head = line(header.map((text) => style.strong(text)));
  return [head, rule, ...rows.map((row) => line(row.slice(0, columns)))].join('\n');
}

function pad(text: string, width: number, align: Alignment): string {
  const room = Math.max(0, width - displayWidth(text));
  if (align === 'right') return ' '.repeat(room) + text;
  if (align === 'center') return ' '.repeat(Math.floor(room / 2)) + text + ' '.repeat(Math.ceil(room / 2));
  return text + ' '.repeat(room);
}

/** A plain table's delimiter cell, `:---:` for centred columns and so on. */
function delimiter(width: number, align: Alignment): string {
  const dashes = '-'.repeat(width);
  if (align === 'center') return `:${dashes}:`;
  if (align === 'right') return `-${dashes}:`;
  if (align === 'left') return `:${dashes}-`;
  return `-${dashes}-`;
}

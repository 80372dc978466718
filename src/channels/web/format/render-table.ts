/**
 * A Markdown table (a `marked` table token) as an HTML table. Column alignment is a class, not a
 * `style` attribute: the page's content security policy allows no inline style. The table sits in
 * a box that scrolls sideways, so a wide table never widens the page on a phone.
 */
import type { Tokens } from 'marked';
import { renderInline } from './render-inline.ts';

const alignClasses = { left: 'align-left', center: 'align-center', right: 'align-right' } as const;

function cell(tag: 'th' | 'td', content: Tokens.TableCell, align: Tokens.Table['align'][number]): string {
  const attribute = align ? ` class="${alignClasses[align]}"` : '';
  return `<${tag}${attribute}>${renderInline(content.tokens)}</${tag}>`;
}

/** Renders `table` as `<div class="table"><table>...</table></div>`. */
export function renderTable(table: Tokens.Table): string {
  const header = `<tr>${table.header.map((content, column) => cell('th', content, table.align[column] ?? null)).join('')}</tr>`;
  const rows = table.rows.map((row) => `<tr>${row.map((content, column) => cell('td', content, table.align[column] ?? null)).join('')}</tr>`);
  const body = rows.length > 0 ? `<tbody>${rows.join('')}</tbody>` : '';
  return `<div class="table"><table><thead>${header}</thead>${body}</table></div>`;
}

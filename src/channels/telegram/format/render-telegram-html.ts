/**
 * Markdown to the HTML subset of Telegram's `parse_mode: 'HTML'`. Telegram has no block markup
 * beyond `pre` and `blockquote`, so blocks become text laid out with newlines: headings as bold
 * lines, list items as `•` or numbered lines (nested ones indented), tables as preformatted
 * text, rules as a line. Every character outside a tag is escaped.
 */
import { Lexer, type Token, type Tokens } from 'marked';
import { escapeAttribute, escapeHtml } from './escape-html.ts';
import { plainInline, renderInline } from './render-inline.ts';

interface BlockContext {
  /** Inside a blockquote (Telegram does not nest them). */
  quoted: boolean;
  /** Nesting depth of lists. */
  listLevel: number;
}

function renderCode(code: Tokens.Code): string {
  const language = code.lang?.trim().split(/\s+/)[0] ?? '';
  const text = escapeHtml(code.text);
  return /^[\w#+.-]+$/.test(language) ? `<pre><code class="language-${escapeAttribute(language)}">${text}</code></pre>` : `<pre>${text}</pre>`;
}

function renderTable(table: Tokens.Table): string {
  const rows = [table.header.map((cell) => plainInline(cell.tokens)), ...table.rows.map((row) => row.map((cell) => plainInline(cell.tokens)))];
  const widths = table.header.map((_, column) => Math.max(...rows.map((row) => Array.from(row[column] ?? '').length)));
  const pad = (text: string, column: number) => {
    const space = ' '.repeat(widths[column]! - Array.from(text).length);
    const align = table.align[column];
    if (align === 'right') return space + text;
    if (align === 'center') return space.slice(0, Math.floor(space.length / 2)) + text + space.slice(Math.floor(space.length / 2));
    return text + space;
  };
  const line = (row: string[]) => row.map((cell, column) => pad(cell, column)).join(' | ').trimEnd();
  const [header, ...body] = rows;
  const rule = widths.map((width) => '-'.repeat(width)).join('-+-');
  return `<pre>${escapeHtml([line(header!), rule, ...body.map(line)].join('\n'))}</pre>`;
}

function renderList(list: Tokens.List, context: BlockContext): string {
  const indent = '  '.repeat(context.listLevel);
  const start = typeof list.start === 'number' ? list.start : 1;
  return list.items.map((item, index) => {
    const bullet = list.ordered ? `${start + index}.` : '•';
    const marker = item.task ? `${bullet} ${item.checked ? '☑' : '☐'}` : bullet;
    const inner = { ...context, listLevel: context.listLevel + 1 };
    const blocks = item.tokens.filter((token) => token.type !== 'checkbox' && token.type !== 'space').map((token) => {
      const rendered = renderBlock(token, inner);
      return token.type === 'list' ? rendered : rendered.replace(/\n/g, `\n${indent}  `);
    });
    const [first = '', ...rest] = blocks;
    return [`${indent}${marker} ${first}`, ...rest].join('\n');
  }).join('\n');
}

function renderBlock(token: Token, context: BlockContext): string {
  switch (token.type) {
    case 'paragraph':
      return renderInline((token as Tokens.Paragraph).tokens);
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? renderInline(text.tokens) : escapeHtml(text.text);
    }
    case 'heading':
      return `<b>${renderInline((token as Tokens.Heading).tokens)}</b>`;
    case 'code':
      return renderCode(token as Tokens.Code);
    case 'blockquote': {
      const inner = renderBlocks((token as Tokens.Blockquote).tokens, { ...context, quoted: true });
      return context.quoted ? inner : `<blockquote>${inner}</blockquote>`;
    }
    case 'list':
      return renderList(token as Tokens.List, context);
    case 'table':
      return renderTable(token as Tokens.Table);
    case 'hr':
      return '──────────';
    case 'space':
    case 'def':
      return '';
    default:
      return escapeHtml(token.raw.trim());
  }
}

function renderBlocks(tokens: Token[], context: BlockContext): string {
  return tokens.map((token) => renderBlock(token, context)).filter((block) => block !== '').join('\n\n');
}

/**
 * Renders Markdown as Telegram HTML (tags b, i, s, u, code, pre, a, blockquote).
 *
 * @example
 * renderTelegramHtml('**Done**: see `main.ts`'); // '<b>Done</b>: see <code>main.ts</code>'
 */
export function renderTelegramHtml(markdown: string): string {
  return renderBlocks(new Lexer().lex(markdown), { quoted: false, listLevel: 0 }).trim();
}

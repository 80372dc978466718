/**
 * Markdown to Slack mrkdwn. Slack has no block markup beyond code blocks and `>` quotes, so
 * blocks become text laid out with newlines: headings as bold lines, list items as `•` or
 * numbered lines (nested ones indented), tables as code blocks with aligned columns, rules as a
 * line. `&`, `<` and `>` are escaped everywhere outside link brackets, inside code too (Slack
 * decodes them there as well). Code blocks lose their language: Slack shows none.
 */
import { Lexer, type Token, type Tokens } from 'marked';
import { escapeMrkdwn } from './escape-mrkdwn.ts';
import { plainInline, renderInline } from './render-inline.ts';

interface BlockContext {
  /** Nesting depth of lists. */
  listLevel: number;
}

function codeBlock(text: string): string {
  return `\`\`\`\n${escapeMrkdwn(text)}\n\`\`\``;
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
  return codeBlock([line(header!), rule, ...body.map(line)].join('\n'));
}

function renderList(list: Tokens.List, context: BlockContext): string {
  const indent = '    '.repeat(context.listLevel);
  const start = typeof list.start === 'number' ? list.start : 1;
  return list.items.map((item, index) => {
    const bullet = list.ordered ? `${start + index}.` : '•';
    const marker = item.task ? `${bullet} ${item.checked ? '☑' : '☐'}` : bullet;
    const inner = { listLevel: context.listLevel + 1 };
    const blocks = item.tokens.filter((token) => token.type !== 'checkbox' && token.type !== 'space').map((token) => {
      const rendered = renderBlock(token, inner);
      return token.type === 'list' || token.type === 'code' ? rendered : rendered.replace(/\n/g, `\n${indent}    `);
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
      return text.tokens ? renderInline(text.tokens) : escapeMrkdwn(text.text);
    }
    case 'heading': {
      const inner = renderInline((token as Tokens.Heading).tokens).trim();
      return inner === '' ? '' : `*${inner}*`;
    }
    case 'code':
      return codeBlock((token as Tokens.Code).text);
    case 'blockquote': {
      const inner = renderBlocks((token as Tokens.Blockquote).tokens, context);
      return inner.split('\n').map((line) => (line.startsWith('> ') || line === '>' ? line : `> ${line}`)).join('\n');
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
      return escapeMrkdwn(token.raw.trim());
  }
}

function renderBlocks(tokens: Token[], context: BlockContext): string {
  return tokens.map((token) => renderBlock(token, context)).filter((block) => block !== '').join('\n\n');
}

/**
 * Renders Markdown as Slack mrkdwn.
 *
 * @example
 * renderSlackMrkdwn('**Done**: see [docs](https://x.dev) & `a<b`'); // '*Done*: see <https://x.dev|docs> &amp; `a&lt;b`'
 */
export function renderSlackMrkdwn(markdown: string): string {
  return renderBlocks(new Lexer().lex(markdown), { listLevel: 0 }).trim();
}

/**
 * Markdown to the HTML the web chat page shows, rendered on the server with `marked`'s lexer and
 * a renderer of our own: paragraphs, headings, bold, italic, strikethrough, code, links (and bare
 * URLs), lists (nested, tasks), quotes, rules and tables. Safe by construction: every piece of
 * text is escaped and only fixed tags are written, so raw HTML in an answer shows as text and a
 * link can only go to `http:`, `https:` or `mailto:`. A single newline is a line break, as people
 * expect in a chat; an unclosed code fence (a reply still streaming) is code up to the end.
 */
import { Lexer, type Token, type Tokens } from 'marked';
import { decodeEntities } from '../../markdown/decode-entities.ts';
import { escapeHtml } from '../../../core/escape-html.ts';
import { renderInline } from './render-inline.ts';
import { renderTable } from './render-table.ts';

function renderCode(code: Tokens.Code): string {
  const language = code.lang?.trim().split(/\s+/)[0] ?? '';
  const attribute = /^[\w#+.-]+$/.test(language) ? ` data-language="${escapeHtml(language)}"` : '';
  return `<pre><code${attribute}>${escapeHtml(code.text)}</code></pre>`;
}

function renderList(list: Tokens.List): string {
  const tag = list.ordered ? 'ol' : 'ul';
  const start = list.ordered && typeof list.start === 'number' && list.start !== 1 ? ` start="${list.start}"` : '';
  const items = list.items.map((item) => {
    const box = item.task ? `${item.checked ? '☑' : '☐'} ` : '';
    return `<li>${box}${renderBlocks(item.tokens.filter((token) => token.type !== 'checkbox'))}</li>`;
  });
  return `<${tag}${start}>${items.join('')}</${tag}>`;
}

function renderBlock(token: Token): string {
  switch (token.type) {
    case 'paragraph':
      return `<p>${renderInline((token as Tokens.Paragraph).tokens)}</p>`;
    case 'text': {
      // The text of a tight list item: no paragraph around it.
      const text = token as Tokens.Text;
      return text.tokens ? renderInline(text.tokens) : escapeHtml(decodeEntities(text.text));
    }
    case 'heading': {
      const heading = token as Tokens.Heading;
      return `<h${heading.depth}>${renderInline(heading.tokens)}</h${heading.depth}>`;
    }
    case 'code':
      return renderCode(token as Tokens.Code);
    case 'blockquote':
      return `<blockquote>${renderBlocks((token as Tokens.Blockquote).tokens)}</blockquote>`;
    case 'list':
      return renderList(token as Tokens.List);
    case 'table':
      return renderTable(token as Tokens.Table);
    case 'hr':
      return '<hr>';
    case 'space':
    case 'def':
      return '';
    default:
      // Raw HTML blocks and anything unknown: the text as written.
      return `<p>${escapeHtml(token.raw.trim())}</p>`;
  }
}

function renderBlocks(tokens: Token[]): string {
  return tokens.map(renderBlock).join('');
}

/**
 * Renders Markdown as safe HTML for the web chat page.
 *
 * @example
 * renderWebHtml('| a | b |\n|---|--:|\n| 1 | <b>2</b> |');
 * // '<div class="table"><table><thead><tr><th>a</th><th class="align-right">b</th></tr></thead>'
 * // + '<tbody><tr><td>1</td><td class="align-right">&lt;b&gt;2&lt;/b&gt;</td></tr></tbody></table></div>'
 */
export function renderWebHtml(markdown: string): string {
  return renderBlocks(new Lexer({ gfm: true, breaks: true }).lex(markdown));
}

/**
 * Inline Markdown (as `marked` tokens) to the web chat's HTML: bold, italic, strikethrough, code,
 * links and line breaks. Raw HTML is shown as the text it is (a `<br>` aside), so nothing the
 * model writes becomes markup; links keep only `http:`, `https:` and `mailto:` targets.
 */
import type { Token, Tokens } from 'marked';
import { decodeEntities } from '../../markdown/decode-entities.ts';
import { escapeHtml } from '../../../core/escape-html.ts';

const safeLink = /^(https?:|mailto:)/i;

function link(written: string, inner: string): string {
  // Checked as the browser will read it: `&#58;` and the like are decoded first.
  const href = decodeEntities(written);
  // A new tab: the chat stays open. No referrer and no opener for the page that opens.
  return safeLink.test(href) ? `<a href="${escapeHtml(href)}" target="_blank" rel="noopener noreferrer">${inner}</a>` : inner;
}

function renderToken(token: Token): string {
  switch (token.type) {
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? renderInline(text.tokens) : escapeHtml(decodeEntities(text.text));
    }
    case 'escape':
      return escapeHtml((token as Tokens.Escape).text);
    case 'strong':
      return `<strong>${renderInline((token as Tokens.Strong).tokens)}</strong>`;
    case 'em':
      return `<em>${renderInline((token as Tokens.Em).tokens)}</em>`;
    case 'del':
      return `<del>${renderInline((token as Tokens.Del).tokens)}</del>`;
    case 'codespan':
      return `<code>${escapeHtml((token as Tokens.Codespan).text)}</code>`;
    case 'br':
      return '<br>';
    case 'link': {
      const { href, tokens } = token as Tokens.Link;
      return link(href, renderInline(tokens));
    }
    case 'image': {
      // The page's policy loads no image from elsewhere: the picture is offered as a link.
      const image = token as Tokens.Image;
      return link(image.href, escapeHtml(image.text || image.href));
    }
    case 'html':
      return /^<br\s*\/?>$/i.test(token.raw.trim()) ? '<br>' : escapeHtml(token.raw);
    case 'checkbox':
      return '';
    default:
      return escapeHtml(token.raw);
  }
}

/** Renders inline tokens to safe HTML. */
export function renderInline(tokens: Token[]): string {
  return tokens.map(renderToken).join('');
}

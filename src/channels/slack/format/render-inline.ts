/**
 * Inline Markdown (as `marked` tokens) to Slack mrkdwn: `*bold*`, `_italic_`, `~strike~`,
 * `` `code` ``, `<url|label>` links, line breaks. Raw HTML is shown as text.
 */
import type { Token, Tokens } from 'marked';
import { decodeEntities } from '../../markdown/decode-entities.ts';
import { escapeMrkdwn, linkTarget } from './escape-mrkdwn.ts';

const safeLink = /^(https?:|mailto:)/i;

/** Wraps `inner` in a mrkdwn marker, leaving surrounding spaces outside (Slack needs the marker next to text). */
function wrap(marker: string, inner: string): string {
  const match = /^(\s*)([\s\S]*?)(\s*)$/.exec(inner)!;
  return match[2] === '' ? inner : `${match[1]}${marker}${match[2]}${marker}${match[3]}`;
}

/** Renders inline tokens as mrkdwn. */
export function renderInline(tokens: Token[]): string {
  return tokens.map(renderInlineToken).join('');
}

function renderInlineToken(token: Token): string {
  switch (token.type) {
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? renderInline(text.tokens) : escapeMrkdwn(decodeEntities(text.text));
    }
    case 'escape':
      return escapeMrkdwn((token as Tokens.Escape).text);
    case 'strong':
      return wrap('*', renderInline((token as Tokens.Strong).tokens));
    case 'em':
      return wrap('_', renderInline((token as Tokens.Em).tokens));
    case 'del':
      return wrap('~', renderInline((token as Tokens.Del).tokens));
    case 'codespan':
      return `\`${escapeMrkdwn(decodeEntities((token as Tokens.Codespan).text))}\``;
    case 'br':
      return '\n';
    case 'link': {
      const link = token as Tokens.Link;
      const label = renderInline(link.tokens);
      if (!safeLink.test(link.href)) return label;
      return label === escapeMrkdwn(link.href) ? `<${linkTarget(link.href)}>` : `<${linkTarget(link.href)}|${label}>`;
    }
    case 'image': {
      const image = token as Tokens.Image;
      const label = escapeMrkdwn(image.text || image.href);
      return safeLink.test(image.href) ? `<${linkTarget(image.href)}|${label}>` : label;
    }
    case 'html':
      return /^<br\s*\/?>$/i.test(token.raw.trim()) ? '\n' : escapeMrkdwn(token.raw);
    case 'checkbox':
      return '';
    default:
      return escapeMrkdwn(token.raw);
  }
}

/** The plain text of inline tokens, without markup (for table cells). */
export function plainInline(tokens: Token[]): string {
  return tokens.map((token) => {
    if (token.type === 'codespan' || token.type === 'escape') return decodeEntities((token as Tokens.Codespan).text);
    if (token.type === 'br') return ' ';
    if (token.type === 'html') return /^<br\s*\/?>$/i.test(token.raw.trim()) ? ' ' : token.raw;
    if ('tokens' in token && Array.isArray(token.tokens)) return plainInline(token.tokens);
    return decodeEntities('text' in token && typeof token.text === 'string' ? token.text : token.raw);
  }).join('');
}

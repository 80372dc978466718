/**
 * Inline Markdown (as `marked` tokens) to Telegram HTML: bold, italic, strikethrough, code,
 * links, line breaks. Raw inline HTML passes through only for the tags Telegram knows
 * (`<u>`, `<ins>`, `<tg-spoiler>`, ...) and only when opened and closed among the same siblings,
 * so the output always nests properly; any other HTML is shown as text.
 */
import type { Token, Tokens } from 'marked';
import { decodeEntities } from '../../markdown/decode-entities.ts';
import { escapeAttribute, escapeHtml } from './escape-html.ts';

const passThroughTags = new Set(['b', 'strong', 'i', 'em', 'u', 'ins', 's', 'strike', 'del', 'tg-spoiler']);
const safeLink = /^(https?:|mailto:|tg:)/i;

function htmlTag(token: Token): { name: string; closing: boolean } | undefined {
  if (token.type !== 'html') return undefined;
  const match = /^<(\/?)([a-zA-Z][a-zA-Z-]*)\s*>$/.exec(token.raw.trim());
  if (!match || !passThroughTags.has(match[2]!.toLowerCase())) return undefined;
  return { name: match[2]!.toLowerCase(), closing: match[1] === '/' };
}

/** Indices of the sibling HTML tags that open and close each other properly. */
function pairedTags(tokens: Token[]): Set<number> {
  const paired = new Set<number>();
  const open: { index: number; name: string }[] = [];
  tokens.forEach((token, index) => {
    const tag = htmlTag(token);
    if (!tag) return;
    if (!tag.closing) open.push({ index, name: tag.name });
    else if (open.at(-1)?.name === tag.name) {
      paired.add(open.pop()!.index);
      paired.add(index);
    }
  });
  return paired;
}

/** Renders inline tokens to Telegram HTML. */
export function renderInline(tokens: Token[]): string {
  const paired = pairedTags(tokens);
  return tokens.map((token, index) => {
    if (paired.has(index)) {
      const tag = htmlTag(token)!;
      return `<${tag.closing ? '/' : ''}${tag.name}>`;
    }
    return renderInlineToken(token);
  }).join('');
}

function renderInlineToken(token: Token): string {
  switch (token.type) {
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? renderInline(text.tokens) : escapeHtml(decodeEntities(text.text));
    }
    case 'escape':
      return escapeHtml((token as Tokens.Escape).text);
    case 'strong':
      return `<b>${renderInline((token as Tokens.Strong).tokens)}</b>`;
    case 'em':
      return `<i>${renderInline((token as Tokens.Em).tokens)}</i>`;
    case 'del':
      return `<s>${renderInline((token as Tokens.Del).tokens)}</s>`;
    case 'codespan':
      return `<code>${escapeHtml((token as Tokens.Codespan).text)}</code>`;
    case 'br':
      return '\n';
    case 'link': {
      const link = token as Tokens.Link;
      const inner = renderInline(link.tokens);
      return safeLink.test(link.href) ? `<a href="${escapeAttribute(link.href)}">${inner}</a>` : inner;
    }
    case 'image': {
      const image = token as Tokens.Image;
      const label = escapeHtml(image.text || image.href);
      return safeLink.test(image.href) ? `<a href="${escapeAttribute(image.href)}">${label}</a>` : label;
    }
    case 'html':
      return /^<br\s*\/?>$/i.test(token.raw.trim()) ? '\n' : escapeHtml(token.raw);
    case 'checkbox':
      return '';
    default:
      return escapeHtml(token.raw);
  }
}

/** The visible text of inline tokens, without markup (for table cells). */
export function plainInline(tokens: Token[]): string {
  return tokens.map((token) => {
    if (token.type === 'codespan' || token.type === 'escape') return (token as Tokens.Codespan).text;
    if (token.type === 'br') return ' ';
    if (token.type === 'html') return '';
    if ('tokens' in token && Array.isArray(token.tokens)) return plainInline(token.tokens);
    return decodeEntities('text' in token && typeof token.text === 'string' ? token.text : token.raw);
  }).join('');
}

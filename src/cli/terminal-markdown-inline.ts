/**
 * Inline Markdown (as `marked` tokens) for the terminal: bold, italic, strike-through and code as
 * styles, links as their text with the address after it. Without colour the text stays readable
 * as plain text: code keeps its backticks and strike-through its tildes.
 */
import type { Token, Tokens } from 'marked';
import { decodeEntities } from '../channels/markdown/decode-entities.ts';
import { safeTerminalText } from './terminal-text.ts';
import type { TerminalStyle } from './terminal-style.ts';

const lineBreak = /^<br\s*\/?>$/i;

/** Renders inline tokens for the terminal. */
export function renderTerminalInline(tokens: readonly Token[], style: TerminalStyle): string {
  return tokens.map((token) => renderToken(token, style)).join('');
}

function renderToken(token: Token, style: TerminalStyle): string {
  switch (token.type) {
    case 'text': {
      const text = token as Tokens.Text;
      return text.tokens ? renderTerminalInline(text.tokens, style) : safe(text.text);
    }
    case 'escape':
      return safeTerminalText((token as Tokens.Escape).text);
    case 'strong':
      return style.strong(renderTerminalInline((token as Tokens.Strong).tokens, style));
    case 'em':
      return style.emphasis(renderTerminalInline((token as Tokens.Em).tokens, style));
    case 'del': {
      const inner = renderTerminalInline((token as Tokens.Del).tokens, style);
      return style.color ? style.strike(inner) : `~~${inner}~~`;
    }
    case 'codespan': {
      const code = safe((token as Tokens.Codespan).text);
      return style.color ? style.code(code) : `\`${code}\``;
    }
    case 'br':
      return '\n';
    case 'link':
      return renderLink(token as Tokens.Link, style);
    case 'image': {
      const image = token as Tokens.Image;
      return `${safe(image.text || 'image')} ${style.faint(`(${safeTerminalText(image.href)})`)}`;
    }
    case 'html':
      return lineBreak.test(token.raw.trim()) ? '\n' : safeTerminalText(token.raw);
    case 'checkbox':
      // The list renderer writes the box itself, in front of the item.
      return '';
    default:
      return safeTerminalText(token.raw);
  }
}

/** `text (address)`, or only the address when the text is the address (autolinks, bare URLs). */
function renderLink(link: Tokens.Link, style: TerminalStyle): string {
  const href = safeTerminalText(link.href);
  const label = renderTerminalInline(link.tokens, style);
  const bare = label === href || `mailto:${label}` === href;
  return bare ? style.link(label) : `${style.link(label)} ${style.faint(`(${href})`)}`;
}

function safe(text: string): string {
  return safeTerminalText(decodeEntities(text));
}

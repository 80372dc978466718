/**
 * One outbound Markdown message as the Discord messages to send. Discord renders Markdown itself
 * (bold, italic, strike, inline code, fenced code blocks, links, headings `#` to `###`, lists,
 * quotes), so the text mostly passes through; what Discord does not render is adapted: tables
 * become code blocks, deeper headings bold lines, images links. The result is split with the
 * shared Markdown chunker at Discord's 2,000 characters, never inside a code block.
 */
import { Lexer, type Token, type Tokens } from 'marked';
import { chunkMarkdown } from '../../markdown/chunk-markdown.ts';
import { discordMaxLength } from './max-length.ts';
import { tableToCode } from './table-to-code.ts';

export { discordMaxLength };

function adaptToken(token: Token): string {
  if (token.type === 'table') return tableToCode(token as Tokens.Table);
  if (token.type === 'heading' && (token as Tokens.Heading).depth > 3) {
    const trailing = /\n*$/.exec(token.raw)?.[0] ?? '';
    return `**${(token as Tokens.Heading).text.trim()}**${trailing}`;
  }
  if (token.type === 'code' || !token.raw.includes('![')) return token.raw;
  return token.raw.replace(/!\[([^\]]*)\]\(([^)\s]+)[^)]*\)/g, (_whole, alt: string, url: string) => (alt.trim() === '' ? url : `[${alt}](${url})`));
}

/** The Markdown with what Discord does not render replaced by what it does. */
export function toDiscordMarkdown(markdown: string): string {
  if (!/\||^#{4,}|!\[/m.test(markdown)) return markdown;
  return new Lexer().lex(markdown).map(adaptToken).join('');
}

/** Adapts and splits a Markdown reply into Discord message contents of at most `maxLength`. */
export function formatDiscordMessage(markdown: string, maxLength: number = discordMaxLength): string[] {
  return chunkMarkdown(toDiscordMarkdown(markdown), { maxLength });
}

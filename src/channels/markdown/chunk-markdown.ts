/**
 * Splits a Markdown message into chunks that each fit a platform's length limit, shared by the
 * adapters (Telegram, Discord, Slack) with their own limit and their own way of measuring.
 * Chunks end at block boundaries (paragraphs, list items, table rows, lines) found by the
 * `marked` lexer, never inside a code block: a code block too long for one chunk is closed at
 * the end of a chunk and reopened, with its language, at the start of the next.
 */
import { Lexer, type Token, type Tokens } from 'marked';
import { longestFit, splitLines, type Fits } from './split-lines.ts';

/** Options of {@link chunkMarkdown}. */
export interface MarkdownChunkOptions {
  /** The largest size of one chunk, as `measure` counts it. */
  maxLength: number;
  /**
   * The size of a Markdown chunk as the platform counts it, e.g. the length of its rendering in
   * the platform's markup. Default: the Markdown's own length. Should grow with the text.
   */
  measure?: (markdown: string) => number;
}

/** Table rows as pieces, each repeating the header and delimiter rows. */
function tablePieces(table: Tokens.Table, fits: Fits): string[] | undefined {
  const lines = table.raw.replace(/\n+$/, '').split('\n');
  const header = lines.slice(0, 2).join('\n');
  const rows = lines.slice(2);
  const pieces: string[] = [];
  let index = 0;
  while (index < rows.length) {
    const count = longestFit(rows.length - index, (n) => `${header}\n${rows.slice(index, index + n).join('\n')}\n`, fits);
    if (count === 0) return undefined;
    pieces.push(`${header}\n${rows.slice(index, index + count).join('\n')}\n`);
    index += count;
  }
  return pieces;
}

/** List items as pieces, when their texts add up to the list's. */
function listPieces(list: Tokens.List, fits: Fits): string[] | undefined {
  const items = list.items.map((item) => item.raw);
  const joined = items.join('');
  if (!list.raw.startsWith(joined)) return undefined;
  items[items.length - 1] += list.raw.slice(joined.length);
  return items.flatMap((item) => (fits(item) ? [item] : splitLines(item, fits)));
}

/** A block as pieces that each fit, joined back they give the block (code fences aside). */
function blockPieces(token: Token, fits: Fits): string[] {
  if (fits(token.raw)) return [token.raw];
  if (token.type === 'table') return tablePieces(token as Tokens.Table, fits) ?? splitLines(token.raw, fits);
  if (token.type === 'list') return listPieces(token as Tokens.List, fits) ?? splitLines(token.raw, fits);
  if (token.type === 'code' && (token as Tokens.Code).codeBlockStyle === 'indented') {
    const code = token as Tokens.Code;
    return splitLines(`\`\`\`\n${code.text}\n\`\`\`\n${token.raw.match(/\n*$/)?.[0] ?? ''}`, fits);
  }
  return splitLines(token.raw, fits);
}

/**
 * Splits `markdown` into chunks no larger than `maxLength` (as `measure` counts), preferring
 * block boundaries, never ending a chunk inside a code block. Chunks are trimmed; an empty
 * message gives no chunks.
 *
 * @example
 * chunkMarkdown(reply, { maxLength: 2000 }); // Discord
 * chunkMarkdown(reply, { maxLength: 4096, measure: (chunk) => renderTelegramHtml(chunk).length });
 */
export function chunkMarkdown(markdown: string, options: MarkdownChunkOptions): string[] {
  const measure = options.measure ?? ((chunk: string) => chunk.length);
  const fits: Fits = (chunk) => measure(chunk.trim()) <= options.maxLength;
  const whole = markdown.trim();
  if (whole === '') return [];
  if (fits(whole)) return [whole];
  const pieces = new Lexer().lex(markdown).flatMap((token) => blockPieces(token, fits));
  const chunks: string[] = [];
  let index = 0;
  while (index < pieces.length) {
    const count = Math.max(1, longestFit(pieces.length - index, (n) => pieces.slice(index, index + n).join(''), fits));
    const chunk = pieces.slice(index, index + count).join('').trim();
    if (chunk !== '') chunks.push(chunk);
    index += count;
  }
  return chunks;
}

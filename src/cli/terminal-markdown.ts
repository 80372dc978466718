/**
 * The agent's Markdown rendered for the terminal, over `marked`'s lexer tokens: headings, lists
 * (nested, numbered, tasks), block quotes, code blocks, tables, rules. With colour the marks give
 * way to styles; without, the result is plain text that still reads as the Markdown it came from
 * (`#` headings, fenced code, pipe tables), with emphasis marks and entities removed.
 */
import { lexer } from 'marked';
import type { Token, Tokens } from 'marked';
import { renderTerminalInline } from './terminal-markdown-inline.ts';
import { renderTerminalTable } from './terminal-markdown-table.ts';
import { safeTerminalText } from './terminal-text.ts';
import type { TerminalStyle } from './terminal-style.ts';

/**
 * Renders `markdown` for the terminal: blocks separated by one blank line, ending with a newline
 * (the empty string when there is nothing to show).
 */
export function renderTerminalMarkdown(markdown: string, style: TerminalStyle): string {
  const text = renderBlocks(lexer(markdown), style).join('\n\n');
  return text === '' ? '' : `${text}\n`;
}

/** Each block's text, without blank lines around it; blocks that show nothing are left out. */
function renderBlocks(tokens: readonly Token[], style: TerminalStyle): string[] {
  return tokens.map((token) => renderBlock(token, style)).filter((text) => text !== '');
}

function renderBlock(token: Token, style: TerminalStyle): string {
  switch (token.type) {
    case 'space':
    case 'def':
    case 'checkbox':
      return '';
    case 'heading': {
      const heading = token as Tokens.Heading;
      const text = renderTerminalInline(heading.tokens, style);
      return style.color ? style.heading(text, heading.depth) : `${'#'.repeat(heading.depth)} ${text}`;
    }
    case 'paragraph':
      return renderTerminalInline((token as Tokens.Paragraph).tokens, style);
    case 'text': {
      // Block-level text is what a tight list item holds.
      const text = token as Tokens.Text;
      return text.tokens ? renderTerminalInline(text.tokens, style) : safeTerminalText(text.text);
    }
    case 'code':
      return renderCode(token as Tokens.Code, style);
    case 'list':
      return renderList(token as Tokens.List, style);
    case 'blockquote': {
      const inner = renderBlocks((token as Tokens.Blockquote).tokens, style).join('\n\n');
      const bar = style.color ? style.faint('│ ') : '> ';
      return inner.split('\n').map((line) => (line === '' && !style.color ? '>' : bar + line)).join('\n');
    }
    case 'table':
      return renderTerminalTable(token as Tokens.Table, style);
    case 'hr':
      return style.color ? style.faint('─'.repeat(40)) : '---';
    default:
      // Raw HTML blocks and anything newer than this renderer: as written, minus control characters.
      return safeTerminalText(token.raw.replace(/\n+$/, ''));
  }
}

/**
 * A code block. With colour: indented and styled, no fences, so it copies cleanly. Without:
 * fenced as written, so plain output keeps where the code starts and ends.
 */
function renderCode(code: Tokens.Code, style: TerminalStyle): string {
  const text = safeTerminalText(code.text);
  if (!style.color) return `\`\`\`${code.lang ?? ''}\n${text}\n\`\`\``;
  return text.split('\n').map((line) => `    ${style.code(line)}`).join('\n');
}

/** A list: each item's blocks follow its marker and later lines are indented under the text. */
function renderList(list: Tokens.List, style: TerminalStyle): string {
  const first = typeof list.start === 'number' ? list.start : 1;
  const items = list.items.map((item, index) => {
    const marker = list.ordered ? `${first + index}.` : style.color ? '•' : '-';
    const box = item.task ? (item.checked ? '[x] ' : '[ ] ') : '';
    const body = renderBlocks(item.tokens, style).join(item.loose ? '\n\n' : '\n');
    const indent = ' '.repeat(marker.length + 1);
    const [head = '', ...rest] = `${box}${body}`.split('\n');
    return [`${marker} ${head}`, ...rest.map((line) => (line === '' ? line : indent + line))].join('\n');
  });
  return items.join(list.loose ? '\n\n' : '\n');
}

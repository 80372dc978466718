/**
 * How a Discord client shows a message's Markdown, as far as tests need it: the fenced code
 * blocks (their contents as displayed, without the fences and language) and the text with the
 * fence lines gone. Discord counts a message's length on the Markdown as sent, not on this.
 */

/** A message's content as displayed. */
export interface DisplayedContent {
  /** The content without code fence lines. */
  text: string;
  /** The contents of its fenced code blocks. */
  codeBlocks: string[];
}

const fence = /^\s*(`{3,}|~{3,})/;

/** Reads fenced code blocks out of Discord Markdown. */
export function displayedContent(content: string): DisplayedContent {
  const text: string[] = [];
  const codeBlocks: string[] = [];
  let open: { marker: string; lines: string[] } | undefined;
  for (const line of content.split('\n')) {
    const match = fence.exec(line);
    if (!open && match) {
      open = { marker: match[1]!, lines: [] };
      continue;
    }
    if (open && match && match[1]![0] === open.marker[0] && match[1]!.length >= open.marker.length && line.trim() === match[1]) {
      codeBlocks.push(open.lines.join('\n'));
      text.push(...open.lines);
      open = undefined;
      continue;
    }
    if (open) open.lines.push(line);
    else text.push(line);
  }
  if (open) text.push(...open.lines);
  return { text: text.join('\n'), codeBlocks };
}

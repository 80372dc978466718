/**
 * The Markdown layout of a memory file (see README.md): entries are `- ` list items with
 * indented continuation lines; every other line is text kept verbatim in its place.
 */

/** A run of non-entry lines, or one entry. */
export type MemorySegment = { kind: 'text'; lines: string[] } | { kind: 'entry'; text: string };

const entryStart = '- ';

/** Splits a memory file into text runs and entries, in file order. */
export function parseMemory(source: string): MemorySegment[] {
  const lines = source.replace(/\r\n?/g, '\n').split('\n');
  if (lines.at(-1) === '') lines.pop();
  const segments: MemorySegment[] = [];
  let entry: string[] | undefined;
  const closeEntry = () => {
    if (entry) segments.push({ kind: 'entry', text: normalizeEntry(entry.join('\n')) });
    entry = undefined;
  };
  for (const line of lines) {
    if (line.startsWith(entryStart) && line.trim() !== '-') {
      closeEntry();
      entry = [line.slice(entryStart.length)];
    } else if (entry && /^\s+\S/.test(line)) {
      entry.push(line.replace(/^( {1,2}|\t)/, ''));
    } else {
      closeEntry();
      const last = segments.at(-1);
      if (last?.kind === 'text') last.lines.push(line);
      else segments.push({ kind: 'text', lines: [line] });
    }
  }
  closeEntry();
  return segments;
}

/** The file text for `segments`; parsing it again gives the same segments. */
export function renderMemory(segments: readonly MemorySegment[]): string {
  const lines = segments.flatMap((segment) => (segment.kind === 'text' ? segment.lines : renderEntry(segment.text)));
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

/** One entry as list-item lines: `- first line`, then continuation lines indented by two spaces. */
export function renderEntry(text: string): string[] {
  return text.split('\n').map((line, index) => (index === 0 ? `${entryStart}${line}` : `  ${line}`));
}

/**
 * The canonical text of an entry: no trailing spaces, no blank lines (a blank line would end the
 * list item), trimmed, without a list marker of its own (`- fact` -> `fact`, which would render
 * as `- - fact`). Continuation lines keep their own extra indentation.
 */
export function normalizeEntry(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== '')
    .join('\n')
    .trim()
    .replace(/^[-*+]\s+/, '');
}

/** The comparison key for duplicates and matching: whitespace runs collapsed to one space. */
export function comparisonKey(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The entries' texts, in file order. */
export function entriesOf(segments: readonly MemorySegment[]): string[] {
  return segments.flatMap((segment) => (segment.kind === 'entry' ? [segment.text] : []));
}

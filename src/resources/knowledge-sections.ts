/**
 * Splitting a Markdown document at its headings, so a search hit can name the section it is in.
 * Only ATX headings (`# Title` to `###### Title`) count; a `#` line inside a fenced code block
 * (a shell comment, say) is not a heading.
 */

/** A part of a document: a heading and the text up to the next heading. */
export interface KnowledgeSection {
  /** The heading's text without the `#` marks; `''` for text before the first heading. */
  heading: string;
  /** The text under the heading (the heading line itself excluded). */
  text: string;
  /** 1-based line of the heading (of the first line for text before any heading). */
  line: number;
}

const headingLine = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const fenceLine = /^ {0,3}(`{3,}|~{3,})(.*)$/;

/** Splits `markdown` into sections; text before the first heading is a section with heading `''` (dropped when blank). */
export function splitSections(markdown: string): KnowledgeSection[] {
  const lines = markdown.split(/\r?\n/);
  const sections: KnowledgeSection[] = [];
  let current: { heading: string; line: number; lines: string[] } = { heading: '', line: 1, lines: [] };
  let fence: string | undefined;
  const close = (): void => {
    const text = current.lines.join('\n').trim();
    if (current.heading !== '' || text !== '') sections.push({ heading: current.heading, text, line: current.line });
  };
  lines.forEach((line, index) => {
    const fenceMatch = fenceLine.exec(line);
    if (fenceMatch?.[1]) {
      const marker = fenceMatch[1];
      if (fence === undefined) fence = marker;
      // A closing fence has the opening's character, at least its length, and no info string.
      else if (marker[0] === fence[0] && marker.length >= fence.length && (fenceMatch[2] ?? '').trim() === '') fence = undefined;
    } else if (fence === undefined) {
      const heading = headingLine.exec(line);
      if (heading) {
        close();
        current = { heading: (heading[2] ?? '').trim(), line: index + 1, lines: [] };
        return;
      }
    }
    current.lines.push(line);
  });
  close();
  return sections;
}

/** The first heading of `markdown`, or `undefined` when it has none. */
export function firstHeading(markdown: string): string | undefined {
  return splitSections(markdown).find((section) => section.heading !== '')?.heading;
}

/** Excerpts for search hits: the window of a section's text that holds the most matched terms. */

/** Longest snippet, in characters (ellipses included). */
export const maxSnippetLength = 300;

/** How far before the first match in the window the excerpt starts, for context. */
const leadIn = 60;

/**
 * A one-line excerpt of `text` (whitespace collapsed) of at most `maxLength` characters around
 * the place where most of `terms` occur close together; the start of the text when none occurs.
 * `…` marks text cut at either end.
 */
export function makeSnippet(text: string, terms: readonly string[], maxLength = maxSnippetLength): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= maxLength) return flat;
  const width = maxLength - 2; // room for an ellipsis at each end
  const occurrences = findOccurrences(flat, terms);
  let start = 0;
  let best = 0;
  for (const occurrence of occurrences) {
    const windowStart = Math.max(0, occurrence.index - leadIn);
    const distinct = new Set(
      occurrences
        .filter((other) => other.index >= windowStart && other.index + other.length <= windowStart + width)
        .map((other) => other.term),
    ).size;
    if (distinct > best) {
      best = distinct;
      start = windowStart;
    }
  }
  let end = Math.min(flat.length, start + width);
  if (end === flat.length) start = Math.max(0, end - width);
  // Whole words at the edges, unless a word is absurdly long.
  if (start > 0) {
    const space = flat.indexOf(' ', start);
    if (space !== -1 && space - start < 20) start = space + 1;
  }
  if (end < flat.length) {
    const space = flat.lastIndexOf(' ', end);
    if (space > start && end - space < 30) end = space;
  }
  // Never split a surrogate pair (an emoji, a rare CJK character).
  if (isLowSurrogate(flat.charCodeAt(start))) start++;
  if (isLowSurrogate(flat.charCodeAt(end))) end--;
  return `${start > 0 ? '…' : ''}${flat.slice(start, end).trim()}${end < flat.length ? '…' : ''}`;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

interface Occurrence {
  term: string;
  index: number;
  length: number;
}

/** Where the terms occur (case-insensitive), in text order; at most 500 places. */
function findOccurrences(text: string, terms: readonly string[]): Occurrence[] {
  const occurrences: Occurrence[] = [];
  for (const term of new Set(terms)) {
    if (term === '') continue;
    const pattern = new RegExp(term.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'giu');
    for (const match of text.matchAll(pattern)) {
      occurrences.push({ term, index: match.index, length: match[0].length });
      if (occurrences.length >= 500) break;
    }
  }
  return occurrences.sort((a, b) => a.index - b.index);
}

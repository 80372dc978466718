/**
 * The line-level fallback of the Markdown chunker: splits one block that is too long on its own
 * at line boundaries (then words, then characters), closing a code fence at the end of a piece
 * and reopening it, with its info string, at the start of the next, so no piece ends inside a
 * code block.
 */

/** Whether a Markdown piece fits the platform's limit. */
export type Fits = (markdown: string) => boolean;

interface Fence {
  /** The opening line (with its prefix and info string), repeated when reopening. */
  open: string;
  /** The closing line. */
  close: string;
  marker: string;
}

const fenceLine = /^((?:[ \t]*>)*[ \t]*)(`{3,}|~{3,})(.*)$/;

/** For every line, the fence open before it (undefined outside code). */
function fencesBefore(lines: string[]): (Fence | undefined)[] {
  const result: (Fence | undefined)[] = [];
  let open: Fence | undefined;
  for (const line of lines) {
    result.push(open);
    const match = fenceLine.exec(line.replace(/\n$/, ''));
    if (!match) continue;
    const [, prefix, marker, info] = match as unknown as [string, string, string, string];
    if (!open) {
      if (marker[0] === '`' && info.includes('`')) continue;
      open = { open: line.replace(/\n$/, ''), close: `${prefix}${marker}`, marker };
    } else if (marker[0] === open.marker[0] && marker.length >= open.marker.length && info.trim() === '') {
      open = undefined;
    }
  }
  return result;
}

/**
 * The largest `count` in `[1, max]` for which `fits(build(count))` holds, or 0 when not even one
 * fits. Pieces grow with `count`; galloping then bisecting keeps the measured text near the
 * size of one chunk, however long the whole message.
 */
export function longestFit(max: number, build: (count: number) => string, fits: Fits): number {
  if (max === 0 || !fits(build(1))) return 0;
  let low = 1;
  let high = 2;
  while (high <= max && fits(build(high))) {
    low = high;
    high *= 2;
  }
  high = Math.min(high - 1, max);
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(build(middle))) low = middle;
    else high = middle - 1;
  }
  return low;
}

/** Splits a single line that does not fit: at spaces when it can, else at characters. */
export function splitLongLine(line: string, fits: Fits, wrap: (segment: string) => string = (segment) => segment): string[] {
  const words = line.match(/\S+\s*|\s+/g) ?? [line];
  const segments: string[] = [];
  let index = 0;
  while (index < words.length) {
    const count = longestFit(words.length - index, (n) => wrap(words.slice(index, index + n).join('')), fits);
    if (count > 0) {
      segments.push(words.slice(index, index + count).join(''));
      index += count;
      continue;
    }
    const word = words[index]!;
    const characters = Array.from(word);
    let start = 0;
    while (start < characters.length) {
      const take = Math.max(1, longestFit(characters.length - start, (n) => wrap(characters.slice(start, start + n).join('')), fits));
      segments.push(characters.slice(start, start + take).join(''));
      start += take;
    }
    index += 1;
  }
  return segments;
}

/**
 * Splits `block` into pieces that each fit, at line boundaries where possible. A piece that ends
 * inside a code fence is closed, and the next piece reopens it.
 */
export function splitLines(block: string, fits: Fits): string[] {
  const lines = block.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const fences = fencesBefore(lines);
  const build = (start: number, count: number) => {
    const opening = fences[start];
    const end = start + count;
    const closing = end < lines.length ? fences[end] : undefined;
    const body = lines.slice(start, end).join('');
    return `${opening ? `${opening.open}\n` : ''}${body}${closing ? `${body.endsWith('\n') ? '' : '\n'}${closing.close}\n` : ''}`;
  };
  const pieces: string[] = [];
  let index = 0;
  while (index < lines.length) {
    const count = longestFit(lines.length - index, (n) => build(index, n), fits);
    if (count > 0) {
      pieces.push(build(index, count));
      index += count;
      continue;
    }
    const fence = fences[index];
    const line = lines[index]!;
    const newline = line.endsWith('\n') ? '\n' : '';
    const wrap = (segment: string) => (fence ? `${fence.open}\n${segment}\n${fence.close}\n` : segment);
    for (const segment of splitLongLine(line.replace(/\n$/, ''), fits, wrap)) pieces.push(fence ? wrap(segment) : segment);
    if (!fence && newline) pieces[pieces.length - 1] += newline;
    index += 1;
  }
  return pieces;
}

/**
 * The known setting nearest to a mistyped one, for "did you mean ...?": the same name in another
 * case, else a name one is the start of the other's (`idle` for `idleSeconds`), else the closest
 * by edits (a swap of two neighbouring letters counts as one), within a third of the name's length.
 */

/** The candidate `key` most likely meant, or `undefined` when none is near enough. */
export function nearestKey(key: string, candidates: readonly string[]): string | undefined {
  const wanted = key.toLowerCase();
  const exact = candidates.find((candidate) => candidate.toLowerCase() === wanted);
  if (exact !== undefined) return exact;
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const lower = candidate.toLowerCase();
    const prefix = Math.min(wanted.length, lower.length) >= 3 && (lower.startsWith(wanted) || wanted.startsWith(lower));
    const distance = editDistance(wanted, lower);
    if (!prefix && distance > Math.max(1, Math.floor(wanted.length / 3))) continue;
    // A name that starts the other beats one a few edits away, however long the rest.
    const score = prefix ? 0 : distance;
    if (!best || score < best.distance) best = { candidate, distance: score };
  }
  return best?.candidate;
}

/** Edits (insert, delete, replace, swap of neighbours) that turn `a` into `b`. */
export function editDistance(a: string, b: string): number {
  // Three rows of the table: the one before the previous is needed for swaps.
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) value = Math.min(value, before[j - 2]! + 1);
      current.push(value);
    }
    before = previous;
    previous = current;
  }
  return previous[b.length]!;
}

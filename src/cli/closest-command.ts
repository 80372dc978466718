/**
 * The known command a mistyped one most likely meant: `/stauts` is `/status`, `/comp` is
 * `/compact`. Close means a few edits away (a swap of two neighbours counts as one) or the only
 * command that starts with what was typed.
 */

/** The name in `known` closest to `typed`, or undefined when none is close enough to suggest. */
export function closestCommand(typed: string, known: readonly string[]): string | undefined {
  const wanted = typed.toLowerCase();
  // One edit in a name of three letters or fewer is already a third of it.
  const limit = wanted.length <= 3 ? 1 : 2;
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(wanted, name.toLowerCase());
    if (distance <= limit && (!best || distance < best.distance)) best = { name, distance };
  }
  if (best) return best.name;
  const starting = known.filter((name) => wanted.length >= 2 && name.toLowerCase().startsWith(wanted));
  return starting.length === 1 ? starting[0] : undefined;
}

/**
 * Insertions, deletions, substitutions and swaps of neighbours needed to turn `a` into `b` (the
 * optimal string alignment distance).
 */
export function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, row) => Array.from({ length: b.length + 1 }, (_, column) => (row === 0 ? column : column === 0 ? row : 0)));
  for (let row = 1; row <= a.length; row++) {
    for (let column = 1; column <= b.length; column++) {
      const cost = a[row - 1] === b[column - 1] ? 0 : 1;
      let distance = Math.min(rows[row - 1]![column]! + 1, rows[row]![column - 1]! + 1, rows[row - 1]![column - 1]! + cost);
      if (row > 1 && column > 1 && a[row - 1] === b[column - 2] && a[row - 2] === b[column - 1]) distance = Math.min(distance, rows[row - 2]![column - 2]! + 1);
      rows[row]![column] = distance;
    }
  }
  return rows[a.length]![b.length]!;
}

/** What a reload of a profile's resources changed, as `/reload` reports it. */

/**
 * `skills: +deploy, -old, ~review`-style lines, one per kind that changed, from fingerprints keyed
 * `<kind>:<name>` before and after (`file` keys are reported as `files`).
 */
export function describeChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const byKind = new Map<string, string[]>();
  const note = (key: string, mark: string): void => {
    const colon = key.indexOf(':');
    const kind = key.slice(0, colon);
    const list = byKind.get(kind) ?? [];
    list.push(`${mark}${key.slice(colon + 1)}`);
    byKind.set(kind, list);
  };
  for (const [key, value] of after) {
    if (!before.has(key)) note(key, '+');
    else if (before.get(key) !== value) note(key, '~');
  }
  for (const key of before.keys()) if (!after.has(key)) note(key, '-');
  return [...byKind].map(([kind, names]) => `${kind === 'file' ? 'files' : kind}: ${names.sort().join(', ')}`);
}

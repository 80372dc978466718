/** The text of a command menu entry, fitted to a platform's limit. */

/**
 * `description` on one line (runs of white space become one space) and at most `max` characters,
 * cut with an ellipsis; `fallback` when it is empty.
 *
 * @example
 * menuDescription('Deploy the\nweb app to staging', 16, 'deploy'); // 'Deploy the web…'
 */
export function menuDescription(description: string, max: number, fallback: string): string {
  const line = description.replace(/\s+/g, ' ').trim() || fallback;
  return line.length > max ? `${line.slice(0, max - 1).trimEnd()}…` : line;
}

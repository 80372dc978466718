/**
 * Store key rules. Keys are `:`-separated segments; unstorage maps them to paths on the
 * filesystem and to prefixes in Redis, and silently rewrites some characters, so anything that
 * would be rewritten or could escape the base directory is refused instead.
 */

/** Characters unstorage rewrites (`/`, `\`), cuts at (`?`) or that no file name may hold. */
const FORBIDDEN_CHARACTERS = /[/\\?\0\n\r]/;

/**
 * Throws unless `key` is a valid store key: non-empty segments joined by `:`, no `.` or `..`
 * segment, no `/`, `\`, `?`, NUL or line break, and no trailing `$` (unstorage hides such keys
 * from listings).
 */
export function assertValidKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0) throw new TypeError('Store key must be a non-empty string');
  assertValidSegments(key, key.split(':'));
  if (key.endsWith('$')) throw new TypeError(`Invalid store key ${JSON.stringify(key)}: must not end with "$"`);
}

/**
 * Throws unless `prefix` is a valid listing prefix: empty, or the start of a valid key (it may end
 * with `:` or in the middle of a segment).
 */
export function assertValidPrefix(prefix: string): void {
  if (typeof prefix !== 'string') throw new TypeError('Store prefix must be a string');
  if (prefix === '') return;
  const segments = prefix.split(':');
  // A trailing `:` leaves an empty last segment, which is fine for a prefix.
  if (segments.at(-1) === '') segments.pop();
  assertValidSegments(prefix, segments);
}

function assertValidSegments(text: string, segments: string[]): void {
  if (FORBIDDEN_CHARACTERS.test(text)) {
    throw new TypeError(`Invalid store key ${JSON.stringify(text)}: must not contain "/", "\\", "?", NUL or line breaks`);
  }
  for (const segment of segments) {
    if (segment === '') throw new TypeError(`Invalid store key ${JSON.stringify(text)}: empty segment`);
    if (segment === '.' || segment === '..') throw new TypeError(`Invalid store key ${JSON.stringify(text)}: "." and ".." segments are not allowed`);
  }
}

/**
 * The unstorage base (whole segments ending with `:`, or `''`) that contains every key starting
 * with `prefix`; listings fetch it and filter by the exact prefix.
 */
export function listingBase(prefix: string): string {
  const cut = prefix.lastIndexOf(':');
  return cut === -1 ? '' : prefix.slice(0, cut + 1);
}

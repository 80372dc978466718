/**
 * What extension handlers may replace before a turn (the input, the system prompt, the history):
 * each handler may return an object with the field; the last one that gives it wins.
 */

/** The value of `field` in the last of `results` that has one `accept` takes, else `current`. */
export function overridden<T>(results: readonly unknown[], field: string, accept: (value: unknown) => value is T, current: T): T {
  let value = current;
  for (const result of results) {
    if (typeof result !== 'object' || result === null) continue;
    const given = (result as Record<string, unknown>)[field];
    if (accept(given)) value = given;
  }
  return value;
}

/** `accept` for text fields. */
export function isText(value: unknown): value is string {
  return typeof value === 'string';
}

/** `accept` for lists (the history's messages). */
export function isList<T>(value: unknown): value is T[] {
  return Array.isArray(value);
}

/**
 * How the condition language sees a value: as a string (it only compares strings), and as true or
 * false for a bare-key check. Kept apart from the parser so the rules are in one place.
 */

/**
 * The string a value compares as: strings as they are; `true`/`false`; numbers in decimal
 * (`String(n)`: `0`, `1.5`, `-3`); missing (`undefined`, `null`) as `''`; arrays and objects as
 * their JSON.
 */
export function conditionString(value: unknown): string {
  switch (typeof value) {
    case 'string':
      return value;
    case 'undefined':
      return '';
    case 'boolean':
    case 'number':
    case 'bigint':
      return String(value);
    case 'object':
      if (value === null) return '';
      try {
        return JSON.stringify(value) ?? String(value);
      } catch {
        return String(value);
      }
    default:
      // Functions and symbols never come from a checkpointable context; nothing to compare.
      return '';
  }
}

/**
 * Whether a bare-key clause holds. The spec says "non-empty value"; on top of that `false` (the
 * boolean, or the string in any case, since the language cannot tell them apart: `key = false`
 * matches both) is false, as are an empty array and an empty object. `0` is true: it is a
 * non-empty value (an exit code of 0 is something, not nothing).
 */
export function conditionTruthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object' && value !== null) return Object.keys(value).length > 0;
  const text = conditionString(value);
  return text !== '' && text.toLowerCase() !== 'false';
}

/**
 * Attribute values: DOT gives every value as a string; these turn them into the numbers, booleans
 * and texts a pipeline needs, or say plainly what is wrong. Each parser returns either the value
 * or an `{ error }` naming what was expected, so the caller can name the node and attribute.
 */

/** A value, or why the text is not one. */
export type Parsed<T> = { value: T } | { error: string };

/**
 * The text of a quoted DOT string as DOT defines it: `\"` is a quote, and a backslash at the end
 * of a line joins the next line to it. Every other backslash is left as written (DOT keeps them;
 * {@link decodeEscString} gives them meaning for text attributes).
 */
export function decodeQuoted(raw: string): string {
  if (!raw.includes('\\')) return raw;
  return raw.replace(/\\\r?\n/g, '').replace(/\\"/g, '"');
}

/** The names `\N`, `\G` (and for edges `\E`, `\T`, `\H`) stand for in a text attribute. */
export interface EscNames {
  node?: string;
  graph?: string;
  edge?: { source: string; target: string };
}

/**
 * A text attribute (`label`, `prompt`, `goal`, `model_stylesheet`) read as Graphviz reads a label
 * (its escString type): `\n`, `\l` and `\r` are line breaks, `\\` a backslash, `\N` the node's
 * name, `\G` the graph's, `\E`, `\T`, `\H` the edge, its tail and its head. Any other backslash is
 * kept. Other attributes (a `tool_command`, a `condition`) keep their backslashes: a shell command
 * means its own escapes.
 */
export function decodeEscString(text: string, names: EscNames = {}): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\([\\nlrNGETH])/g, (whole, letter: string) => {
    switch (letter) {
      case '\\':
        return '\\';
      case 'n':
      case 'l':
      case 'r':
        return '\n';
      case 'N':
        return names.node ?? whole;
      case 'G':
        return names.graph ?? whole;
      case 'E':
        return names.edge ? `${names.edge.source}->${names.edge.target}` : whole;
      case 'T':
        return names.edge?.source ?? whole;
      case 'H':
        return names.edge?.target ?? whole;
      default:
        return whole;
    }
  });
}

const integerPattern = /^[+-]?\d+$/;
const decimalPattern = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A whole number, at least `min` when given. */
export function parseInteger(text: string, min?: number): Parsed<number> {
  const trimmed = text.trim();
  const expected = min === undefined ? 'a whole number' : `a whole number of ${min} or more`;
  if (!integerPattern.test(trimmed)) return { error: `expected ${expected}, got "${text}"` };
  const value = Number(trimmed);
  if (!Number.isSafeInteger(value)) return { error: `"${text}" is too large` };
  if (min !== undefined && value < min) return { error: `expected ${expected}, got ${value}` };
  return { value };
}

/** A decimal number (`0.7`, `2`, `.5`, `1e3`), at least `min` when given. */
export function parseDecimal(text: string, min?: number): Parsed<number> {
  const trimmed = text.trim();
  const expected = min === undefined ? 'a number' : `a number of ${min} or more`;
  if (!decimalPattern.test(trimmed)) return { error: `expected ${expected}, got "${text}"` };
  const value = Number(trimmed);
  if (!Number.isFinite(value)) return { error: `"${text}" is too large` };
  if (min !== undefined && value < min) return { error: `expected ${expected}, got ${value}` };
  return { value };
}

const durationUnits: Readonly<Record<string, number>> = { ms: 0.001, s: 1, sec: 1, m: 60, min: 60, h: 3600 };

/**
 * A duration in seconds, more than 0: a plain number is seconds (the spec's float), and a unit may
 * follow because people write `30s`, `5m`, `1h`, `500ms`.
 */
export function parseDuration(text: string): Parsed<number> {
  const match = /^\s*([+-]?(?:\d+\.?\d*|\.\d+))\s*([a-z]*)\s*$/i.exec(text);
  const unit = match?.[2]?.toLowerCase() ?? '';
  const factor = unit === '' ? 1 : Object.hasOwn(durationUnits, unit) ? durationUnits[unit] : undefined;
  if (!match || factor === undefined) return { error: `expected seconds (a number, or with a unit: 500ms, 30s, 5m, 1h), got "${text}"` };
  const value = Number(match[1]) * factor;
  if (!(value > 0) || !Number.isFinite(value)) return { error: `expected a duration of more than 0, got "${text}"` };
  return { value };
}

const trueWords = new Set(['true', 'yes', 'on', '1']);
const falseWords = new Set(['false', 'no', 'off', '0']);

/** `true`/`false` (also `yes`/`no`, `on`/`off`, `1`/`0`, any case, as Graphviz's booleans). */
export function parseBoolean(text: string): Parsed<boolean> {
  const word = text.trim().toLowerCase();
  if (trueWords.has(word)) return { value: true };
  if (falseWords.has(word)) return { value: false };
  return { error: `expected true or false, got "${text}"` };
}

/** The reasoning efforts a node may ask for. */
export const reasoningEfforts = ['low', 'medium', 'high'] as const;

/** One of {@link reasoningEfforts} (any case). */
export function parseReasoningEffort(text: string): Parsed<(typeof reasoningEfforts)[number]> {
  const word = text.trim().toLowerCase();
  const value = reasoningEfforts.find((effort) => effort === word);
  return value === undefined ? { error: `expected low, medium or high, got "${text}"` } : { value };
}

/**
 * Loop detection: notices when the model keeps making the same tool calls. It only reports; the
 * caller decides whether to warn the model (see {@link loopWarning}). Nothing is stopped here.
 */

/** A repeating sequence of tool calls at the end of the recent history. */
export interface LoopPattern {
  /** Calls in one repetition: 1, 2 or 3. */
  length: number;
  /** How many times the sequence repeats back to back, counted within the window. */
  repetitions: number;
  /** Tool names of one repetition, oldest first. */
  tools: string[];
}

/** Watches the tool calls of one agent run. */
export interface LoopDetector {
  /**
   * Records a call and returns the pattern it completes, if any. While a loop goes on, every
   * further call that extends it is reported again, with the larger repetition count.
   */
  record(name: string, args: unknown): LoopPattern | undefined;
  /** Forgets every recorded call. */
  reset(): void;
}

/**
 * Fewest back-to-back repetitions reported, by pattern length. Three identical calls in a row
 * already mean the model ignored two identical answers; longer patterns need the same three rounds
 * so that a normal edit-then-check rhythm (two rounds) is not flagged.
 */
const minimumRepetitions: ReadonlyMap<number, number> = new Map([
  [1, 3],
  [2, 3],
  [3, 3],
]);

/**
 * Creates a detector over the last `window` calls. A pattern is reported when the last `k * m`
 * calls are one sequence of `k` calls repeated `m` times, for `k` of 1, 2 or 3 and `m` of at least
 * 3; the shortest such `k` wins. Patterns longer than the window cannot be seen (the default of 10
 * holds three rounds of the longest pattern).
 */
export function createLoopDetector(window = 10): LoopDetector {
  if (!Number.isInteger(window) || window < 1) throw new RangeError(`Loop detection window must be a positive integer, got ${window}`);
  let history: { name: string; fingerprint: string }[] = [];
  return {
    record(name, args) {
      history.push({ name, fingerprint: toolCallFingerprint(name, args) });
      if (history.length > window) history = history.slice(-window);
      return findPattern(history);
    },
    reset() {
      history = [];
    },
  };
}

function findPattern(history: readonly { name: string; fingerprint: string }[]): LoopPattern | undefined {
  for (const [length, minimum] of minimumRepetitions) {
    const repetitions = trailingRepetitions(history, length);
    if (repetitions >= minimum) {
      return { length, repetitions, tools: history.slice(-length).map((call) => call.name) };
    }
  }
  return undefined;
}

/** How many whole copies of the last `length` calls end the history back to back. */
function trailingRepetitions(history: readonly { fingerprint: string }[], length: number): number {
  const last = history.length - 1;
  let matching = 0;
  while (matching + length <= last && history[last - matching]!.fingerprint === history[last - matching - length]!.fingerprint) {
    matching++;
  }
  return Math.floor((matching + length) / length);
}

/** The sentence to show the model when a loop is detected. */
export function loopWarning(pattern: LoopPattern): string {
  const calls = pattern.tools.join(', ');
  const what = pattern.length === 1 ? `the same ${calls} call` : `the same sequence of calls (${calls})`;
  return (
    `You seem to be repeating yourself: you have made ${what} ${pattern.repetitions} times in a row with the same arguments. ` +
    'Repeating it will not give a different result; stop and change your approach.'
  );
}

/** Identifies a call by tool name and arguments; key order in the arguments does not matter. */
export function toolCallFingerprint(name: string, args: unknown): string {
  return `${name}:${hashString(canonicalJson(args))}`;
}

/** JSON with object keys sorted, so equal values give equal text. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value, new WeakSet())) ?? 'undefined';
}

function sortKeys(value: unknown, seen: WeakSet<object>): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return (value as { toJSON(): unknown }).toJSON();
  if (seen.has(value)) return '[Circular]';
  seen.add(value);
  let sorted: unknown;
  if (Array.isArray(value)) {
    sorted = value.map((item) => sortKeys(item, seen));
  } else {
    const result: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort()) result[key] = sortKeys((value as Record<string, unknown>)[key], seen);
    sorted = result;
  }
  seen.delete(value);
  return sorted;
}

/**
 * A 64-bit non-cryptographic hash (two independent 32-bit multiply-xor lanes), as 16 hex digits.
 * Written out rather than using `node:crypto` so the agent layer stays runtime-neutral.
 */
function hashString(text: string): string {
  let first = 0x811c9dc5;
  let second = 0x9747b28c;
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    first = Math.imul(first ^ code, 0x01000193);
    second = Math.imul(second ^ code, 0x5bd1e995);
    second ^= second >>> 15;
  }
  first = Math.imul(first ^ (first >>> 16), 0x85ebca6b);
  second = Math.imul(second ^ (second >>> 13), 0xc2b2ae35);
  return (first >>> 0).toString(16).padStart(8, '0') + (second >>> 0).toString(16).padStart(8, '0');
}

/**
 * How an exception thrown by code operator does not control (a platform SDK's dispatch, an
 * extension, a tool) is described in the log and the metrics: its class, JavaScript's own message
 * for the errors whose messages name code rather than data, and where it was thrown. Messages of
 * other errors are left out: they can quote what they failed on (`JSON.parse` quotes its input,
 * an SDK's error may hold a person's text), and the log must never carry a payload's text.
 */

/** Errors whose messages V8 builds from the code that failed (a property name, an expression), not from data. */
const codeMessages = new Set(['TypeError', 'RangeError', 'ReferenceError']);

/** The longest message kept. */
const maxMessage = 160;

/** The first stack frame's file (its last two path parts) and line, e.g. `structures/BaseInteraction.js:120`. */
function thrownAt(stack: string | undefined): string | undefined {
  const frame = stack?.split('\n').find((line) => /^\s+at /.test(line));
  const match = frame && /([^/\\\s()]+[/\\][^/\\\s()]+?):(\d+)(?::\d+)?\)?\s*$/.exec(frame);
  return match ? `${match[1]}:${match[2]}` : undefined;
}

/**
 * A one-line description of `error` that holds no payload text: the class, JavaScript's message
 * for a TypeError, RangeError or ReferenceError (cut to 160 characters), and the place it was
 * thrown. Pass the result through the caller's token scrubber all the same.
 *
 * @example
 * describeOutsideError(new TypeError("Cannot read properties of undefined (reading 'reduce')"));
 * // "TypeError: Cannot read properties of undefined (reading 'reduce') (at BaseInteraction.js:120)"
 */
export function describeOutsideError(error: unknown): string {
  if (!(error instanceof Error)) return `a thrown ${error === null ? 'null' : typeof error}`;
  const name = error.constructor.name || error.name || 'Error';
  const message = codeMessages.has(name) ? `: ${error.message.replace(/\s+/g, ' ').slice(0, maxMessage)}` : '';
  const where = thrownAt(error.stack);
  return `${name}${message}${where ? ` (at ${where})` : ''}`;
}

/**
 * An event name fit for a metrics label: what the platform calls the event (`INTERACTION_CREATE`,
 * `message`, `app_mention`) when it is a short plain name, `other` otherwise, so a strange payload
 * cannot grow the label set.
 */
export function outsideEventLabel(name: unknown): string {
  return typeof name === 'string' && /^[A-Za-z][A-Za-z0-9_.:-]{0,47}$/.test(name) ? name : 'other';
}

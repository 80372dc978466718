/**
 * How an exception thrown by code operator does not control (a platform SDK's dispatch, an
 * extension, a tool) is described in the log and the metrics: its class, JavaScript's own message
 * when it has one of the shapes that name code rather than data, and where it was thrown. Every
 * other message is left out: messages can quote what they failed on (`JSON.parse` quotes its
 * input, V8's "Cannot create property 'x' on string '...'" quotes the string, an SDK's error may
 * hold a person's text), and the log must never carry a payload's text.
 */

/**
 * V8's messages that say which code failed (a property read or set on nothing, a call of what is
 * not a function, a name not defined) and quote no value. Expressions and property names come
 * from the code that failed.
 */
const codeMessages = [
  /^Cannot (?:read|set) properties of (?:undefined|null) \((?:reading|setting) '[\w$#@.-]{0,64}'\)$/,
  /^Cannot destructure property '[\w$]{1,64}' of '[\w$.()[\]?]{1,96}' as it is (?:undefined|null)\.$/,
  /^[\w$.()[\]?]{1,96} is not (?:a function|a constructor|iterable|defined|a function or its return value is not iterable)$/,
  /^(?:Invalid (?:time value|array length|string length)|Maximum call stack size exceeded)$/,
];

/** The first stack frame's file (its last two path parts) and line, e.g. `structures/BaseInteraction.js:120`. */
function thrownAt(stack: string | undefined): string | undefined {
  const frame = stack?.split('\n').find((line) => /^\s+at /.test(line));
  const match = frame && /([^/\\\s()]+[/\\][^/\\\s()]+?):(\d+)(?::\d+)?\)?\s*$/.exec(frame);
  return match ? `${match[1]}:${match[2]}` : undefined;
}

/**
 * A one-line description of `error` that holds no payload text: the class, JavaScript's message
 * when it is one that names code (see `codeMessages`), and the place it was thrown (the first
 * stack frame's file and line). Pass the result through the caller's token scrubber all the same.
 *
 * @example
 * describeOutsideError(new TypeError("Cannot read properties of undefined (reading 'reduce')"));
 * // "TypeError: Cannot read properties of undefined (reading 'reduce') (at BaseInteraction.js:120)"
 */
export function describeOutsideError(error: unknown): string {
  if (!(error instanceof Error)) return `a thrown ${error === null ? 'null' : typeof error}`;
  const name = /^[\w$]{1,64}$/.test(error.constructor.name) ? error.constructor.name : 'Error';
  const message = codeMessages.some((shape) => shape.test(error.message)) ? `: ${error.message}` : '';
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

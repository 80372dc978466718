/**
 * The one line the terminal shows for a failed tool call: what went wrong, not the word "failed",
 * a stack trace or a JSON body. The full output still goes to the model.
 */
import { safeTerminalText } from './terminal-text.ts';

const maxLength = 120;

/** The `shell` tool's closing line of a failed command (see `src/tools/builtin/shell.ts`). */
const shellStatus = /^\[(Exit code: -?\d+|Command timed out after [^\]]+|Command was killed by [^\]]+)\]$/m;

/** A stack frame (`    at fn (file:1:2)`), never the message. */
const stackFrame = /^\s*at\s/;

/**
 * The first line that says what went wrong in a failed tool call's `output`: the message of a
 * JSON error body, the exit status and first stderr line of a shell command, the last line of a
 * Python traceback, otherwise the first line that is not blank or a stack frame. The `Error: `
 * the tools start with is dropped (the line is marked as a failure already); long lines are cut.
 */
export function toolErrorLine(output: string): string {
  const text = output.replace(/\r\n?/g, '\n');
  const line = jsonErrorMessage(text) ?? shellFailure(text) ?? tracebackLast(text) ?? firstMeaningfulLine(text) ?? '';
  const clean = safeTerminalText(line).replace(/\s+/g, ' ').trim().replace(/^Error:\s*/, '');
  if (clean === '') return 'failed without a message';
  return clean.length > maxLength ? `${clean.slice(0, maxLength - 1).trimEnd()}…` : clean;
}

/** `{"error": "..."}`, `{"error": {"message": "..."}}` or `{"message": "..."}`. */
function jsonErrorMessage(text: string): string | undefined {
  if (!text.trim().startsWith('{')) return undefined;
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return undefined;
  }
  const record = body as { error?: unknown; message?: unknown };
  const error = record.error as { message?: unknown } | string | undefined;
  const message = typeof error === 'string' ? error : typeof error?.message === 'string' ? error.message : record.message;
  return typeof message === 'string' ? firstMeaningfulLine(message) : undefined;
}

/** `exit code 3: first stderr line` (or first output line) for the shell tool's failures. */
function shellFailure(text: string): string | undefined {
  const status = shellStatus.exec(text)?.[1];
  if (!status) return undefined;
  const stderr = text.split(/^STDERR:\n/m)[1];
  const said = firstMeaningfulLine((stderr ?? text).replace(shellStatus, ''));
  const short = status.replace(/^Exit code: /, 'exit code ').replace(/^Command /, '');
  return said ? `${short}: ${said}` : short;
}

/** The last line of a Python traceback, which is where its error is. */
function tracebackLast(text: string): string | undefined {
  if (!/^Traceback \(most recent call last\):/m.test(text)) return undefined;
  return text.split('\n').filter((line) => line.trim() !== '').at(-1);
}

function firstMeaningfulLine(text: string): string | undefined {
  return text.split('\n').find((line) => line.trim() !== '' && !stackFrame.test(line));
}

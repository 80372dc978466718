/**
 * The task workflow's record of its last failure: what failed in a line, the command that shows it
 * again, the end of its output, and a signature that stays the same while the same thing fails
 * (so the workflow sees a fix that changed nothing). Each failure is classified: `recoverable`
 * when changing the work can fix it (a failing test, a compile error, a time limit), `fatal`
 * when it cannot (the check's program is missing, a guardrail refused the command, the disk or
 * the network is not there): the workflow then stops and says why instead of trying again.
 */
import { createHash } from 'node:crypto';

/** Whether changing the work can fix a failure. */
export type ErrorCategory = 'recoverable' | 'fatal';

/** The last failure, as the workflow keeps and shows it. */
export interface LastError {
  /** What failed, in one line (at most 200 characters). */
  summary: string;
  /** The command that fails this way. */
  reproCommand: string;
  /** The output's last lines (at most {@link tailLines} lines, 4,000 characters). */
  stderrTail: string;
  /** 12 hex digits, the same while the same checks fail the same way (numbers, times and paths aside). */
  signature: string;
  category: ErrorCategory;
  /** Why it was classified so. */
  reason: string;
}

/** What running a command gave (the `tool` handler's outcome). */
export interface CommandResult {
  exitCode: number | null;
  output: string;
  /** Set when a guardrail refused the command. */
  refused?: string;
}

/** Lines of output a record keeps. */
export const tailLines = 40;

/** Failures of the machine, not the work: no change to the project fixes them. */
const environmentFailures: readonly [RegExp, string][] = [
  [/No space left on device|ENOSPC/, 'the disk is full'],
  [/Cannot allocate memory|JavaScript heap out of memory|MemoryError\b|ENOMEM/, 'the machine ran out of memory'],
  [/getaddrinfo|ENOTFOUND|EAI_AGAIN|Could not resolve host|Temporary failure in name resolution|Network is unreachable/, 'the network is not reachable from the sandbox'],
];

/** Lines that say what failed, in the usual test runners' and compilers' words. */
const failureLine = /\b(FAIL|FAILED|Error|error(\[E\d+\])?:|panicked at|AssertionError|Traceback|not ok \d+)\b/;

/**
 * The record of `command`'s failure, or undefined when it did not fail (exit code 0).
 *
 * @example
 * const error = lastErrorOf('npm test', { exitCode: 1, output });
 * if (error?.category === 'fatal') stop(error.reason);
 */
export function lastErrorOf(command: string, result: CommandResult): LastError | undefined {
  if (result.refused === undefined && result.exitCode === 0) return undefined;
  const lines = result.output.split('\n').map((line) => line.trimEnd()).filter((line) => line.trim() !== '');
  const stderrTail = lines.slice(-tailLines).join('\n').slice(-4_000);
  const named = lines.filter((line) => failureLine.test(line));
  const summaryLine = result.refused !== undefined ? `refused: ${result.refused}` : (named[0] ?? lines.at(-1) ?? `exited with ${result.exitCode ?? 'a signal'}`);
  const { category, reason } = classify(result);
  return {
    summary: summaryLine.trim().slice(0, 200),
    reproCommand: command,
    stderrTail,
    signature: signatureOf(result.refused !== undefined ? [result.refused] : named.length > 0 ? named : lines.slice(-3)),
    category,
    reason,
  };
}

/** Whether changing the work can fix the failure, and why. */
export function classify(result: CommandResult): { category: ErrorCategory; reason: string } {
  if (result.refused !== undefined) return { category: 'fatal', reason: `a guardrail refused the command: ${result.refused}` };
  if (result.exitCode === 127) return { category: 'fatal', reason: 'the command (or a program it runs) is not installed' };
  if (result.exitCode === 126) return { category: 'fatal', reason: 'the command could not be run (not executable, or not allowed)' };
  for (const [pattern, reason] of environmentFailures) if (pattern.test(result.output)) return { category: 'fatal', reason };
  if (result.exitCode === null) return { category: 'recoverable', reason: 'it was stopped (its time limit, or a signal): the work may hang' };
  return { category: 'recoverable', reason: `it exited with ${result.exitCode}: the checks fail` };
}

/**
 * A short hash of `lines` without what changes between two runs of the same failure: numbers
 * (line and column, durations, counts, addresses) and absolute paths' folders.
 */
function signatureOf(lines: readonly string[]): string {
  const normal = [...new Set(lines.map((line) => line.replace(/(\/[\w.-]+)+\/([\w.-]+)/g, '$2').replace(/0x[0-9a-f]+|\d+(\.\d+)?/gi, 'N').replace(/\s+/g, ' ').trim()))].sort();
  return createHash('sha256').update(normal.join('\n')).digest('hex').slice(0, 12);
}

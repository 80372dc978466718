/**
 * What a child process writes, kept as text as it arrives, with a way to wait until a given line
 * (or any text) shows up. Waiting is driven by the output itself, not by polling, and gives up as
 * soon as the streams end, so a process that dies early fails the test at once with what it said.
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';

/** Which output a wait reads: stdout, stderr, or both interleaved in arrival order. */
export type OutputStream = 'stdout' | 'stderr' | 'all';

/** Options of {@link CapturedOutput.waitFor}. */
export interface WaitForOutputOptions {
  /** Default `stdout`. */
  stream?: OutputStream;
  /** Default 15 s. */
  timeoutMs?: number;
  /** What was awaited, as the error names it; default the pattern itself. */
  label?: string;
}

/** Everything a process has written so far. */
export interface CapturedOutput {
  stdout(): string;
  stderr(): string;
  /** Both streams, interleaved in the order their chunks arrived. */
  all(): string;
  /**
   * Resolves with the first match of `pattern` (a string is matched literally) once the process
   * has written it, at once if it already has. Rejects, quoting both streams, when the process's
   * output ends without it or after `timeoutMs`.
   */
  waitFor(pattern: string | RegExp, options?: WaitForOutputOptions): Promise<RegExpExecArray>;
}

/** A pending {@link CapturedOutput.waitFor}: checked on every chunk, failed when the output ends. */
interface Waiter {
  check(): boolean;
  fail(reason: string): void;
}

// Generous: what is waited for is an event, and three test files share this machine's two cores.
const defaultTimeoutMs = 45_000;

/** Starts recording `child`'s stdout and stderr; call it right after spawning, before any output is lost. */
export function captureOutput(child: ChildProcessWithoutNullStreams): CapturedOutput {
  const text: Record<OutputStream, string> = { stdout: '', stderr: '', all: '' };
  const waiters = new Set<Waiter>();
  let ended: string | undefined;

  for (const stream of ['stdout', 'stderr'] as const) {
    // Decoding per stream keeps a character split across two chunks whole.
    child[stream].setEncoding('utf8');
    child[stream].on('data', (chunk: string) => {
      text[stream] += chunk;
      text.all += chunk;
      for (const waiter of [...waiters]) waiter.check();
    });
  }
  // 'close' comes after both streams ended, so nothing the process wrote can still be on its way.
  child.once('close', (code, signal) => {
    ended = signal ? `it was ended by ${signal}` : `it exited with code ${code}`;
    for (const waiter of [...waiters]) waiter.fail(ended);
  });

  const quote = () => `stdout:\n${text.stdout}\nstderr:\n${text.stderr}`;

  return {
    stdout: () => text.stdout,
    stderr: () => text.stderr,
    all: () => text.all,
    waitFor(pattern, options = {}) {
      const stream = options.stream ?? 'stdout';
      const timeoutMs = options.timeoutMs ?? defaultTimeoutMs;
      const regex = typeof pattern === 'string' ? new RegExp(pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')) : new RegExp(pattern.source, pattern.flags.replace(/[gy]/g, ''));
      return new Promise<RegExpExecArray>((resolve, reject) => {
        const waiter: Waiter = {
          check() {
            const match = regex.exec(text[stream]);
            if (!match) return false;
            settle();
            resolve(match);
            return true;
          },
          fail(reason) {
            settle();
            reject(new Error(`the process did not write ${options.label ?? String(pattern)} to ${stream}: ${reason}\n${quote()}`));
          },
        };
        const timer = setTimeout(() => waiter.fail(`not within ${timeoutMs} ms`), timeoutMs);
        const settle = () => {
          clearTimeout(timer);
          waiters.delete(waiter);
        };
        if (waiter.check()) return;
        if (ended !== undefined) return waiter.fail(ended);
        waiters.add(waiter);
      });
    },
  };
}

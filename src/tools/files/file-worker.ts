/**
 * One file worker process (see `worker/main.js`): requests go to its stdin as lines of JSON, answers
 * come back on its stdout. A call that runs past its time limit, or whose turn is stopped, kills
 * the process with everything in it (a search stuck in a pattern that backtracks included); the
 * pool starts a new one for the next call.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { SpawnSpec } from '../sandbox/sandbox.ts';

/** A failure the worker reported (a file system error keeps its `code`, such as `ENOENT`). */
export class FileWorkerError extends Error {
  readonly code: string;
  constructor(code: string, message: string) {
    super(message);
    this.name = 'FileWorkerError';
    this.code = code;
  }
}

/** The call ran past its time limit; the worker was killed to end it. */
export class FileWorkerTimeoutError extends Error {
  constructor(readonly timeoutMs: number) {
    super(`it ran for more than ${formatSeconds(timeoutMs)} and was stopped`);
    this.name = 'FileWorkerTimeoutError';
  }
}

/** How one call is bounded. */
export interface FileCallOptions {
  /** Aborting kills the worker and rejects the call with the signal's reason. */
  signal?: AbortSignal;
  /** Milliseconds before the worker is killed and the call rejected with {@link FileWorkerTimeoutError}. */
  timeoutMs: number;
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
  cleanUp(): void;
}

/** Largest answer line taken from a worker (an image or a text window is well below it). */
const maxAnswerChars = 96 * 1024 * 1024;

/** A running file worker. */
export class FileWorker {
  readonly #child: ChildProcessWithoutNullStreams;
  readonly #pending = new Map<number, Pending>();
  #nextId = 1;
  #stderr = '';
  #ended: string | undefined;
  /** When it last finished a call (or started), for the pool's idle check. */
  lastUsed = Date.now();
  /** Snapshots taken in it and not yet compared (see `snapshot-ops.js`): it is kept while any is. */
  snapshots = 0;

  constructor(spec: SpawnSpec) {
    // Its own process group, so that killing it takes `bwrap` and the sandbox with it.
    this.#child = spawn(spec.file, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['pipe', 'pipe', 'pipe'], detached: true });
    const answers = createInterface({ input: this.#child.stdout, crlfDelay: Infinity });
    answers.on('line', (line) => this.#answer(line));
    this.#child.stderr.setEncoding('utf8');
    this.#child.stderr.on('data', (text: string) => {
      // Only the tail is kept: it explains an early death.
      this.#stderr = (this.#stderr + text).slice(-2_000);
    });
    this.#child.stdin.on('error', () => undefined);
    this.#child.on('error', (error) => this.#end(`it could not be started: ${error.message}`));
    this.#child.on('exit', (code, signal) => this.#end(`it stopped (${signal ?? `exit code ${code}`})${this.#stderr.trim() ? `: ${this.#stderr.trim().split('\n').at(-1)}` : ''}`));
  }

  /** Whether it has calls in flight. */
  get busy(): boolean {
    return this.#pending.size > 0;
  }

  /** Whether it can take calls. */
  get alive(): boolean {
    return this.#ended === undefined;
  }

  /** Sends `op` with `args`; resolves with the worker's result. */
  call<Result>(op: string, args: Record<string, unknown>, options: FileCallOptions): Promise<Result> {
    if (this.#ended !== undefined) return Promise.reject(new FileWorkerError('EWORKER', `the file worker is not running: ${this.#ended}`));
    options.signal?.throwIfAborted();
    const id = this.#nextId++;
    return new Promise<Result>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#fail(id, new FileWorkerTimeoutError(options.timeoutMs));
      }, options.timeoutMs);
      const onAbort = () => this.#fail(id, options.signal?.reason ?? new Error('aborted'));
      options.signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.set(id, {
        resolve: resolve as (value: unknown) => void,
        reject,
        cleanUp: () => {
          clearTimeout(timer);
          options.signal?.removeEventListener('abort', onAbort);
        },
      });
      // The call's own id and operation win over any argument of the same name.
      this.#child.stdin.write(`${JSON.stringify({ ...args, id, op })}\n`);
    });
  }

  /** Ends the process (and the sandbox around it); calls in flight are rejected. */
  close(): void {
    this.#kill();
    this.#end('it was closed');
  }

  /** Rejects call `id` with `error` and kills the worker, whose other calls fail with it. */
  #fail(id: number, error: unknown): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    pending.cleanUp();
    pending.reject(error);
    this.#kill();
    this.#end('another call in the same conversation was stopped, which restarts the file worker');
  }

  #kill(): void {
    const pid = this.#child.pid;
    if (pid === undefined || this.#child.exitCode !== null || this.#child.signalCode !== null) return;
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Gone already.
    }
  }

  #answer(line: string): void {
    this.lastUsed = Date.now();
    if (line.length > maxAnswerChars) {
      this.#kill();
      return this.#end('it answered more than a call may return');
    }
    let message: { id: number; result?: unknown; error?: { code: string; message: string } };
    try {
      message = JSON.parse(line) as typeof message;
    } catch {
      return;
    }
    const pending = this.#pending.get(message.id);
    if (!pending) return;
    this.#pending.delete(message.id);
    pending.cleanUp();
    if (message.error) pending.reject(new FileWorkerError(message.error.code, message.error.message));
    else pending.resolve(message.result);
  }

  #end(why: string): void {
    if (this.#ended === undefined) this.#ended = why;
    for (const [id, pending] of this.#pending) {
      this.#pending.delete(id);
      pending.cleanUp();
      pending.reject(new FileWorkerError('EWORKER', `the file worker stopped: ${this.#ended}`));
    }
    this.#child.stdin.end();
  }
}

function formatSeconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

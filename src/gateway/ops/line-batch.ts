/**
 * The log's lines of one stretch of work, written out in one go. Each write to stderr is a system
 * call that also wakes whatever reads it (journald, a container's log driver, a terminal); a turn
 * logs four lines or more, and a burst of messages hundreds in one stretch. Lines are kept until
 * the work that wrote them has run to its end, promises included (`process.nextTick`, which runs
 * once the microtasks of the moment are done), then written as one: before anything that stretch
 * sent over the network goes out (Node sends a request's bytes on a later tick), so a line still
 * comes before the reply it tells of. What is pending is written at once on the process's `exit`
 * (a `stop`, an exit after an uncaught exception) and whenever it reaches
 * {@link LineBatchOptions.limit}. Only a kill that gives the process no turn of its own (SIGKILL,
 * a crash of the runtime itself) loses the lines of the stretch it came in.
 */
import type { LogOutput } from './ops-log.ts';

/** Options of {@link LineBatch}. */
export interface LineBatchOptions {
  /** Pending text at which it is written at once, without waiting for the turn of the loop to end. Default 64 KiB. */
  limit?: number;
}

/**
 * A {@link LogOutput} that gathers the lines of a stretch of work into one write to `output`, in
 * the order they came.
 *
 * @example
 * const output = new LineBatch(process.stderr);
 * process.on('exit', () => output.flush());
 * const log = createOpsLog({ env, scrub, output });
 */
export class LineBatch implements LogOutput {
  readonly isTTY: boolean | undefined;
  readonly #output: LogOutput;
  readonly #limit: number;
  #pending: string[] = [];
  #length = 0;
  #scheduled = false;

  constructor(output: LogOutput, options: LineBatchOptions = {}) {
    this.#output = output;
    this.isTTY = output.isTTY;
    this.#limit = options.limit ?? 64 * 1024;
  }

  write(text: string): boolean {
    this.#pending.push(text);
    this.#length += text.length;
    if (this.#length >= this.#limit) {
      this.flush();
    } else if (!this.#scheduled) {
      this.#scheduled = true;
      process.nextTick(() => {
        this.#scheduled = false;
        this.flush();
      });
    }
    return true;
  }

  /** Writes what is pending now (nothing when nothing is). */
  flush(): void {
    if (this.#pending.length === 0) return;
    const text = this.#pending.length === 1 ? this.#pending[0]! : this.#pending.join('');
    this.#pending = [];
    this.#length = 0;
    this.#output.write(text);
  }
}

/**
 * What every fake platform server's state shares: a feed of changes that tests (`waitFor`) and
 * held requests (long polls) wait on, and scripted failures taken one call at a time.
 */

/** A scripted failure: how many calls it answers (default one), and which (default any). */
export interface Scripted {
  times?: number;
}

/** The change feed a fake's state extends. */
export class ChangeFeed {
  #listeners = new Set<() => void>();

  /** Tells waiters that something changed. */
  notify(): void {
    for (const listener of [...this.#listeners]) listener();
  }

  /** Calls `listener` on every change until the returned function is called. */
  subscribe(listener: () => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Resolves with `read()`'s first truthy value, checked now and on every change; rejects after
   * `timeoutMs` naming `fake` (e.g. `fake Slack`).
   */
  waitFor<T>(read: () => T | undefined | null | false, timeoutMs: number, fake: string): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const value = read();
        if (value === undefined || value === null || value === false) return;
        clearTimeout(timer);
        unsubscribe();
        resolve(value);
      };
      const timer = setTimeout(() => {
        unsubscribe();
        reject(new Error(`${fake}: condition not met within ${timeoutMs} ms`));
      }, timeoutMs);
      const unsubscribe = this.subscribe(check);
      check();
    });
  }
}

/**
 * The first failure queued under `key` if `applies` accepts it, consumed once it has answered
 * its `times` calls.
 */
export function takeScripted<F extends Scripted>(queues: Map<string, F[]>, key: string, applies: (failure: F) => boolean): F | undefined {
  const queue = queues.get(key);
  const failure = queue?.[0];
  if (!queue || !failure || !applies(failure)) return undefined;
  const remaining = (failure.times ?? 1) - 1;
  if (remaining > 0) queue[0] = { ...failure, times: remaining };
  else queue.shift();
  return failure;
}

/**
 * An in-process async mutex per key: a promise chain, so waiters sleep instead of polling, and
 * the entry of a key is dropped as soon as nobody holds or awaits it, so memory does not grow
 * with the number of keys ever locked.
 */
export class KeyedMutex {
  /** For each busy key, a promise that settles when its last queued holder releases. */
  private readonly tails = new Map<string, Promise<void>>();

  /** Runs `fn` once every earlier holder of `key` has finished; holders run in call order. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key);
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const tail = previous ? previous.then(() => released) : released;
    this.tails.set(key, tail);
    try {
      if (previous) await previous;
      return await fn();
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /**
   * Whether `key` is held or awaited now. A caller whose whole critical section is synchronous
   * may run it without {@link run} while this is false: nothing can come between its start and
   * its end, which is what holding the key would guarantee.
   */
  busy(key: string): boolean {
    return this.tails.has(key);
  }

  /** Number of keys currently held or awaited. */
  get size(): number {
    return this.tails.size;
  }
}

/**
 * Work in order per channel: one channel's jobs run one after another, in the order they came;
 * different channels' run side by side, so a slow hand-over (or a history being read) in one
 * conversation never holds up another. Only channels with work keep an entry.
 */

/** Per-channel serial queues. */
export class ChannelQueues {
  readonly #tails = new Map<string, Promise<void>>();
  readonly #onError: (error: unknown) => void;

  /** `onError` hears a job's failure (the channel's later jobs still run). */
  constructor(onError: (error: unknown) => void) {
    this.#onError = onError;
  }

  /** Queues `job` behind the jobs of `channelId` queued before it. */
  run(channelId: string, job: () => Promise<void>): void {
    const tail = (this.#tails.get(channelId) ?? Promise.resolve()).then(job).catch(this.#onError);
    this.#tails.set(channelId, tail);
    // Dropped once it is the last job of its channel and done: an idle channel costs nothing.
    void tail.then(() => {
      if (this.#tails.get(channelId) === tail) this.#tails.delete(channelId);
    });
  }

  /** Resolves once every job queued so far, and any queued meanwhile, is done. */
  async settled(): Promise<void> {
    while (this.#tails.size > 0) await Promise.all(this.#tails.values());
  }

  /** Channels with work queued or running. */
  get size(): number {
    return this.#tails.size;
  }
}

/**
 * Iterates an SDK stream until `signal` aborts, then stops at once: events the SDK had already
 * buffered are not part of the answer. Each read is raced against the signal because an SDK
 * stream aborted between two reads, after the whole response had arrived, can wait forever on
 * the next read (seen with both SDKs on Node 20's fetch).
 *
 * The race is one abort listener that settles whichever read is waiting, not `Promise.race` with
 * a promise of the abort: each such race leaves a reaction on that promise until it settles,
 * and the reaction keeps the race's result, so a stream would hold every event it had read
 * until its end (a long answer's thousands of deltas, in each conversation answering at once).
 */
export async function* untilAborted<T>(iterable: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T, void, undefined> {
  const iterator = iterable[Symbol.asyncIterator]();
  /** Settles the read under way as aborted; unset between reads. */
  let stopRead: (() => void) | undefined;
  const onAbort = () => stopRead?.();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    while (!signal.aborted) {
      const result = await new Promise<IteratorResult<T> | 'aborted'>((resolve, reject) => {
        stopRead = () => resolve('aborted');
        iterator.next().then(resolve, reject);
      });
      stopRead = undefined;
      if (result === 'aborted' || result.done === true) return;
      yield result.value;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    // Not awaited: after an abort the iterator may never settle.
    iterator.return?.().catch(() => {});
  }
}

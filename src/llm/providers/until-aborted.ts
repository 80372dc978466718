/**
 * Iterates an SDK stream until `signal` aborts, then stops at once: events the SDK had already
 * buffered are not part of the answer. Each read is raced against the signal because an SDK
 * stream aborted between two reads, after the whole response had arrived, can wait forever on
 * the next read (seen with both SDKs on Node 20's fetch).
 */
export async function* untilAborted<T>(iterable: AsyncIterable<T>, signal: AbortSignal): AsyncGenerator<T, void, undefined> {
  const iterator = iterable[Symbol.asyncIterator]();
  let onAbort = () => {};
  const aborted = new Promise<'aborted'>((resolve) => {
    onAbort = () => resolve('aborted');
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    while (!signal.aborted) {
      const result = await Promise.race([iterator.next(), aborted]);
      if (result === 'aborted' || result.done === true) return;
      yield result.value;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
    // Not awaited: after an abort the iterator may never settle.
    iterator.return?.().catch(() => {});
  }
}

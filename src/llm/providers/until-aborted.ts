/**
 * Iterates an SDK stream until `signal` aborts, then stops at once. The SDK streams stop on an
 * abort only while a read is pending: aborted between two reads, with the response still
 * arriving, the next read can wait forever (seen with both SDKs on Node 20), so each read is
 * raced against the signal.
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

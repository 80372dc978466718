// Loaded into the benchmarked gateway with `node --expose-gc --import ./bench/gateway-heap-probe.mjs`:
// on SIGUSR2 it runs a full garbage collection and writes the process's memory figures to stderr
// as one line `gateway-heap-probe {json}`. Nothing else in the process changes; the gateway has no
// debug endpoint and the benchmark adds none.
import { getHeapStatistics } from 'node:v8';

process.on('SIGUSR2', () => {
  const gc = globalThis.gc;
  if (gc) {
    gc();
    gc();
  }
  const v8 = getHeapStatistics();
  const figures = {
    ...process.memoryUsage(),
    physicalHeap: v8.total_physical_size,
    mallocedByV8: v8.malloced_memory,
    contexts: v8.number_of_native_contexts,
    collected: Boolean(gc),
  };
  process.stderr.write(`gateway-heap-probe ${JSON.stringify(figures)}\n`);
});

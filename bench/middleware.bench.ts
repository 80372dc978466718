/**
 * What the model-call middleware seam costs per call (`src/llm/middleware.ts`). An in-process
 * provider streams a typical answer (message-start, 200 text deltas, message-end) with no I/O, so
 * the seam's own work is all that differs:
 *
 * - floor: the provider's stream read directly;
 * - the agent's chain: the usage book alone (an `afterResponse` hook), as every turn now runs;
 * - a full chain: three middleware with all three hooks (a pass-through `wrapStream` each).
 *
 * The runs alternate call by call, so the machine's noise falls on all alike. The figures are
 * the median call and its ratio to the floor; against a real provider call (hundreds of
 * milliseconds at least) the difference is what matters. Target for the agent's chain: at most
 * 2x the floor; a layer between two async iterators costs at least one promise reaction per
 * event, which is about half of what the floor's own read costs.
 */
import { withMiddleware, type ModelMiddleware } from '../src/llm/middleware.ts';
import type { AssistantMessage, ModelRequest, Provider, StreamEvent } from '../src/llm/types.ts';
import { usageMiddleware } from '../src/agent/usage-middleware.ts';
import { emptyCost } from '../src/llm/cost.ts';
import { collectGarbage, elapsedMs, median, type BenchResult } from './lib.ts';

const CALLS = 3_000;
const WARMUP = 300;
const DELTAS = 200;

const finalMessage: AssistantMessage = { role: 'assistant', content: [{ type: 'text', text: 'x'.repeat(DELTAS * 4) }], stopReason: 'stop', usage: { input: 1200, output: 300, cacheRead: 800, cacheWrite: 0 } };

const provider: Provider = {
  name: 'bench',
  async *stream(): AsyncIterable<StreamEvent> {
    yield { type: 'message-start', model: 'bench-model' };
    for (let index = 0; index < DELTAS; index++) yield { type: 'text-delta', text: 'xxxx' };
    yield { type: 'message-end', message: finalMessage };
  },
};

const request: ModelRequest = { model: 'bench-model', systemPrompt: '', messages: [] };

function fullMiddleware(name: string): ModelMiddleware {
  return {
    name,
    beforeRequest: (given) => given,
    async *wrapStream(events) {
      yield* events;
    },
    afterResponse: () => undefined,
  };
}

async function drain(source: Provider): Promise<void> {
  let count = 0;
  for await (const event of source.stream(request)) if (event.type === 'text-delta') count++;
  if (count !== DELTAS) throw new Error(`expected ${DELTAS} deltas, read ${count}`);
}

export default async function run(): Promise<BenchResult[]> {
  let recorded = 0;
  const book = withMiddleware(provider, [usageMiddleware({ record: () => (recorded++, emptyCost()), report: async () => undefined })]);
  const full = withMiddleware(provider, [fullMiddleware('a'), fullMiddleware('b'), fullMiddleware('c')]);
  const runs = { floor: provider, book, full };
  const samples: Record<keyof typeof runs, number[]> = { floor: [], book: [], full: [] };
  for (let index = 0; index < WARMUP; index++) for (const source of Object.values(runs)) await drain(source);
  collectGarbage();
  for (let index = 0; index < CALLS; index++) {
    for (const [name, source] of Object.entries(runs) as [keyof typeof runs, Provider][]) {
      const start = process.hrtime.bigint();
      await drain(source);
      samples[name].push(elapsedMs(start));
    }
  }
  if (recorded !== WARMUP + CALLS) throw new Error(`the usage book counted ${recorded} calls`);
  const floor = median(samples.floor);
  const book_ = median(samples.book);
  const full_ = median(samples.full);
  return [
    { name: 'one call read directly (floor), median', value: floor * 1000, unit: 'µs' },
    { name: "the agent's chain (usage book), median", value: book_ * 1000, unit: 'µs', note: `${(book_ / floor).toFixed(2)}x the floor, +${((book_ - floor) * 1000).toFixed(1)} µs a call` },
    { name: 'ratio, agent chain to floor', value: book_ / floor, unit: 'x', target: '<= 2x', pass: book_ / floor <= 2 },
    { name: 'three middleware with every hook, median', value: full_ * 1000, unit: 'µs', note: `${(full_ / floor).toFixed(2)}x the floor, +${((full_ - floor) * 1000).toFixed(1)} µs a call` },
  ];
}

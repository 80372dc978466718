import { describe, expect, it } from 'vitest';
import { lazyProvider } from '../../src/llm/lazy-provider.ts';
import type { Provider, StreamEvent } from '../../src/llm/types.ts';
import { holdWarmUps } from '../../src/llm/warm-up-gate.ts';

/** A provider whose "SDK" counts how often it was loaded. */
function countingProvider() {
  const loads = { count: 0 };
  const provider = lazyProvider('counting', async () => {
    loads.count++;
    return {
      name: 'counting',
      async *stream(): AsyncIterable<StreamEvent> {},
    } as Provider;
  });
  return { provider, loads };
}

/** Lets pending promise callbacks run. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('warm-up gate', () => {
  it('holds warm() until every hold is released, and loads the SDK once', async () => {
    const first = holdWarmUps();
    const second = holdWarmUps();
    const { provider, loads } = countingProvider();
    let warmed = false;
    const warming = provider.warm().then(() => (warmed = true));
    await settle();
    expect(loads.count).toBe(0);
    first();
    await settle();
    expect(loads.count).toBe(0);
    second();
    second();
    await warming;
    expect(warmed).toBe(true);
    expect(loads.count).toBe(1);
    await provider.warm();
    expect(loads.count).toBe(1);
  });

  it('never holds a model call', async () => {
    const release = holdWarmUps();
    try {
      const { provider, loads } = countingProvider();
      void provider.warm();
      for await (const _event of provider.stream({} as never)) {
        // no events
      }
      expect(loads.count).toBe(1);
    } finally {
      release();
    }
  });

  it('lets warm() load at once when nothing is held', async () => {
    const { provider, loads } = countingProvider();
    await provider.warm();
    expect(loads.count).toBe(1);
  });
});

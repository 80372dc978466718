import { describe, expect, it } from 'vitest';
import { lazyProvider } from '../../src/llm/lazy-provider.ts';
import type { Provider, StreamEvent } from '../../src/llm/types.ts';

/** A provider whose "SDK" counts how often it was loaded, and which streams one text delta. */
function countingProvider() {
  const loads = { count: 0 };
  const provider = lazyProvider('counting', async () => {
    loads.count++;
    return {
      name: 'counting',
      async *stream(): AsyncIterable<StreamEvent> {
        yield { type: 'text-delta', text: 'hi' } as StreamEvent;
      },
    } as Provider;
  });
  return { provider, loads };
}

async function collect(provider: Provider): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const event of provider.stream({} as never)) events.push(event);
  return events;
}

describe('lazyProvider', () => {
  it('loads nothing until warmed or called', async () => {
    const { loads } = countingProvider();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(loads.count).toBe(0);
  });

  it('loads the SDK once however often it is warmed, and calls find it loaded', async () => {
    const { provider, loads } = countingProvider();
    await Promise.all([provider.warm(), provider.warm()]);
    expect(loads.count).toBe(1);
    expect(await collect(provider)).toEqual([{ type: 'text-delta', text: 'hi' }]);
    await provider.warm();
    expect(loads.count).toBe(1);
  });

  it('loads on the first call when nobody warmed it', async () => {
    const { provider, loads } = countingProvider();
    expect(await collect(provider)).toHaveLength(1);
    await collect(provider);
    expect(loads.count).toBe(1);
  });

  it('shows a failed load on the call, not only on warm()', async () => {
    const provider = lazyProvider('missing', async () => {
      throw new Error('SDK missing');
    });
    await expect(provider.warm()).rejects.toThrow('SDK missing');
    await expect(collect(provider)).rejects.toThrow('SDK missing');
  });
});

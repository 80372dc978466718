/**
 * A provider whose SDK is loaded on first use. The vendor SDKs take hundreds of milliseconds to
 * import, so operator starts without them and loads only the one the configured model needs:
 * in the background as the runtime is made (`warm`), or at the latest on the first call. In
 * dist/, the Anthropic provider (the default model's) is in the start's one chunk
 * (bin/build.js), so its `import()` finds it loaded.
 */
import type { ModelRequest, Provider, StreamEvent } from './types.ts';

/** A provider that can be told to load itself ahead of the first call. */
export interface LazyProvider extends Provider {
  /** Loads the SDK ahead of the first call; resolves when it is ready. */
  warm(): Promise<void>;
}

/**
 * Makes Node load its fetch implementation now. The vendor SDKs build each request's headers
 * with the global Headers class, whose first use loads it (about 10 ms of the main thread): a
 * start does it while it waits for something else, not in the first call.
 */
export function loadFetchClasses(): void {
  new Headers();
}

/** Wraps `load` so the real provider is created once, when first needed. */
export function lazyProvider(name: string, load: () => Promise<Provider>): LazyProvider {
  let loading: Promise<Provider> | undefined;
  const get = () => (loading ??= load());
  return {
    name,
    async warm() {
      await get();
      loadFetchClasses();
    },
    async *stream(request: ModelRequest): AsyncIterable<StreamEvent> {
      const provider = await get();
      yield* provider.stream(request);
    },
  };
}

/**
 * A provider whose SDK is loaded on first use. The vendor SDKs take hundreds of milliseconds to
 * import, so operator starts without them and loads only the one the configured model needs —
 * in the background once start-up is over (`warm`, which waits for any hold of
 * `warm-up-gate.ts`), or at the latest on the first call. In dist/, the Anthropic provider (the
 * default model's) is in the start's one chunk (bin/build.js), so its `import()` finds it loaded.
 */
import type { ModelRequest, Provider, StreamEvent } from './types.ts';
import { warmUpsAllowed } from './warm-up-gate.ts';

/** A provider that can be told to load itself ahead of the first call. */
export interface LazyProvider extends Provider {
  /** Loads the SDK ahead of the first call, as soon as no warm-up hold is in place; resolves when it is ready. */
  warm(): Promise<void>;
}

/** Wraps `load` so the real provider is created once, when first needed. */
export function lazyProvider(name: string, load: () => Promise<Provider>): LazyProvider {
  let loading: Promise<Provider> | undefined;
  const get = () => (loading ??= load());
  return {
    name,
    async warm() {
      await warmUpsAllowed();
      await get();
      // The vendor SDKs build each request's headers with the global Headers class, whose first
      // use makes Node load its fetch implementation (about 20 ms): done here, not in the first call.
      new Headers();
    },
    async *stream(request: ModelRequest): AsyncIterable<StreamEvent> {
      const provider = await get();
      yield* provider.stream(request);
    },
  };
}

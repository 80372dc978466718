/**
 * Middleware of model calls: code that sees (and may change) every request before it is sent,
 * every streamed event, and every finished answer, without the provider or the caller knowing.
 * The usage book of an agent is one (see `src/agent/usage-middleware.ts`).
 */
import { ProviderError } from '../core/errors.ts';
import { redactSecrets } from './redact-secrets.ts';
import type { AssistantMessage, ModelRequest, Provider, StreamEvent } from './types.ts';

/**
 * One middleware; every hook is optional.
 *
 * Order: `beforeRequest` runs in the order the middleware was given; `wrapStream` wraps so the
 * first given is outermost (it sees the events last, as the caller will); `afterResponse` runs
 * in reverse order, on the message the caller is about to get.
 */
export interface ModelMiddleware {
  /** Names the middleware in the error a failing hook ends the call with. */
  readonly name: string;
  /** The request to send instead (a new value; the given one is not to be changed). */
  beforeRequest?(request: ModelRequest): ModelRequest | Promise<ModelRequest>;
  /**
   * The events as the caller will see them. A wrapper must keep the stream contract of
   * {@link StreamEvent}: end with `message-end` or `error`, and not throw (a throw, or an end
   * without either, becomes an `error` event anyway).
   */
  wrapStream?(events: AsyncIterable<StreamEvent>, request: ModelRequest): AsyncIterable<StreamEvent>;
  /**
   * The finished answer (`message-end`, aborted ones included; not a failed call's partial
   * message), before the caller gets it: the caller's next step waits for this hook.
   */
  afterResponse?(message: AssistantMessage, request: ModelRequest): void | Promise<void>;
}

/**
 * `provider` with `middleware` around every call. With no middleware, `provider` itself: a call
 * pays nothing for the seam unless something uses it.
 *
 * A hook that throws ends the call with an `error` event (kind `UNKNOWN`, so a caller may try
 * again) naming the middleware and the hook; the stream contract holds either way.
 */
export function withMiddleware<P extends Provider>(provider: P, middleware: readonly ModelMiddleware[]): P {
  if (middleware.length === 0) return provider;
  const chain = [...middleware];
  return { ...provider, stream: (request: ModelRequest) => middlewareStream(provider, chain, request) };
}

function middlewareStream(provider: Provider, middleware: readonly ModelMiddleware[], given: ModelRequest): AsyncIterable<StreamEvent> {
  return { [Symbol.asyncIterator]: () => new MiddlewareIterator(provider, middleware, given) };
}

/**
 * The events of one call through the middleware. An iterator of its own rather than an async
 * generator: an event passes with one promise reaction, where a generator layer costs several,
 * and the agent's usage book is on every call (see `bench/middleware.bench.ts`).
 */
class MiddlewareIterator implements AsyncIterator<StreamEvent, undefined> {
  readonly #provider: Provider;
  readonly #middleware: readonly ModelMiddleware[];
  #request: ModelRequest;
  #events: AsyncIterator<StreamEvent> | undefined;
  #finished = false;

  constructor(provider: Provider, middleware: readonly ModelMiddleware[], request: ModelRequest) {
    this.#provider = provider;
    this.#middleware = middleware;
    this.#request = request;
  }

  next(): Promise<IteratorResult<StreamEvent, undefined>> {
    if (this.#finished) return this.return();
    if (this.#events === undefined) return this.#start().then((failed) => (failed ? this.#last(failed) : this.#read()));
    return this.#read();
  }

  /** The next event of the source, passed on with no further await unless it ends the call. */
  #read(): Promise<IteratorResult<StreamEvent, undefined>> {
    let pending: Promise<IteratorResult<StreamEvent>>;
    try {
      pending = this.#events!.next();
    } catch (error) {
      return Promise.resolve(this.#thrown(error));
    }
    return pending.then(
      (result) => this.#take(result),
      (error: unknown) => this.#thrown(error),
    );
  }

  #take(result: IteratorResult<StreamEvent>): IteratorResult<StreamEvent, undefined> | Promise<IteratorResult<StreamEvent, undefined>> {
    if (result.done) {
      return this.#last({ type: 'error', error: new ProviderError(`${this.#provider.name}: the stream ended before the message was complete`, { provider: this.#provider.name, kind: 'UNKNOWN' }) });
    }
    const event = result.value;
    if (event.type === 'error') return this.#last(event);
    if (event.type !== 'message-end') return { done: false, value: event };
    return this.#afterResponse(event);
  }

  /** The after-response hooks, last given first, then the end (or the error of a hook that failed). */
  async #afterResponse(event: Extract<StreamEvent, { type: 'message-end' }>): Promise<IteratorResult<StreamEvent, undefined>> {
    for (let index = this.#middleware.length - 1; index >= 0; index--) {
      const entry = this.#middleware[index]!;
      if (!entry.afterResponse) continue;
      try {
        await entry.afterResponse(event.message, this.#request);
      } catch (error) {
        return this.#last({ type: 'error', error: hookFailed(this.#provider.name, entry, 'afterResponse', error), partial: event.message });
      }
    }
    return this.#last(event);
  }

  #thrown(error: unknown): IteratorResult<StreamEvent, undefined> {
    return this.#last({ type: 'error', error: new ProviderError(`${this.#provider.name}: ${message(error)}`, { provider: this.#provider.name, kind: 'UNKNOWN' }) });
  }

  async return(): Promise<IteratorResult<StreamEvent, undefined>> {
    this.#finished = true;
    const events = this.#events;
    this.#events = undefined;
    await events?.return?.();
    return { done: true, value: undefined };
  }

  /** Runs the before-request hooks and opens the stream; an error event when a hook failed. */
  async #start(): Promise<StreamEvent | undefined> {
    for (const entry of this.#middleware) {
      if (!entry.beforeRequest) continue;
      try {
        this.#request = await entry.beforeRequest(this.#request);
      } catch (error) {
        return { type: 'error', error: hookFailed(this.#provider.name, entry, 'beforeRequest', error) };
      }
    }
    let events: AsyncIterable<StreamEvent>;
    try {
      events = this.#provider.stream(this.#request);
    } catch (error) {
      return { type: 'error', error: new ProviderError(`${this.#provider.name}: ${message(error)}`, { provider: this.#provider.name, kind: 'UNKNOWN' }) };
    }
    for (let index = this.#middleware.length - 1; index >= 0; index--) {
      const entry = this.#middleware[index]!;
      if (!entry.wrapStream) continue;
      try {
        events = guarded(entry.wrapStream(events, this.#request), this.#provider.name, entry);
      } catch (error) {
        return { type: 'error', error: hookFailed(this.#provider.name, entry, 'wrapStream', error) };
      }
    }
    this.#events = events[Symbol.asyncIterator]();
    return undefined;
  }

  /** `event` as the last one: the next call ends the iteration (and closes the source). */
  #last(event: StreamEvent): IteratorResult<StreamEvent, undefined> {
    this.#finished = true;
    return { done: false, value: event };
  }
}

/** A wrapper's events held to the stream contract: a throw or an early end becomes the last, `error`, event. */
async function* guarded(events: AsyncIterable<StreamEvent>, provider: string, entry: ModelMiddleware): AsyncGenerator<StreamEvent, void, undefined> {
  try {
    for await (const event of events) {
      yield event;
      if (event.type === 'message-end' || event.type === 'error') return;
    }
  } catch (error) {
    yield { type: 'error', error: hookFailed(provider, entry, 'wrapStream', error) };
    return;
  }
  yield { type: 'error', error: new ProviderError(`${provider}: middleware ${entry.name} (wrapStream) ended before the message was complete`, { provider, kind: 'UNKNOWN' }) };
}

function hookFailed(provider: string, entry: ModelMiddleware, hook: keyof ModelMiddleware, error: unknown): ProviderError {
  return new ProviderError(`${provider}: middleware ${entry.name} failed in ${hook}: ${message(error)}`, { provider, kind: 'UNKNOWN' });
}

// Hooks are our own code, but what they throw may quote a request: keys never reach the message.
function message(error: unknown): string {
  return redactSecrets(error instanceof Error ? error.message : String(error));
}

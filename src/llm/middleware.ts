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

async function* middlewareStream(provider: Provider, middleware: readonly ModelMiddleware[], given: ModelRequest): AsyncGenerator<StreamEvent, void, undefined> {
  let request = given;
  for (const entry of middleware) {
    if (!entry.beforeRequest) continue;
    try {
      request = await entry.beforeRequest(request);
    } catch (error) {
      yield { type: 'error', error: hookFailed(provider.name, entry, 'beforeRequest', error) };
      return;
    }
  }
  let events: AsyncIterable<StreamEvent> = provider.stream(request);
  for (let index = middleware.length - 1; index >= 0; index--) {
    const entry = middleware[index]!;
    if (entry.wrapStream) events = guarded(entry.wrapStream(events, request), provider.name, entry);
  }
  for await (const event of guarded(events, provider.name)) {
    if (event.type === 'message-end') {
      for (let index = middleware.length - 1; index >= 0; index--) {
        const entry = middleware[index]!;
        if (!entry.afterResponse) continue;
        try {
          await entry.afterResponse(event.message, request);
        } catch (error) {
          yield { type: 'error', error: hookFailed(provider.name, entry, 'afterResponse', error), partial: event.message };
          return;
        }
      }
    }
    yield event;
    if (event.type === 'message-end' || event.type === 'error') return;
  }
}

/** `events` held to the stream contract: a throw or an early end becomes the last, `error`, event. */
async function* guarded(events: AsyncIterable<StreamEvent>, provider: string, entry?: ModelMiddleware): AsyncGenerator<StreamEvent, void, undefined> {
  try {
    for await (const event of events) {
      yield event;
      if (event.type === 'message-end' || event.type === 'error') return;
    }
  } catch (error) {
    yield { type: 'error', error: entry ? hookFailed(provider, entry, 'wrapStream', error) : new ProviderError(`${provider}: ${message(error)}`, { provider, kind: 'UNKNOWN' }) };
    return;
  }
  const who = entry ? `middleware ${entry.name} (wrapStream)` : 'the stream';
  yield { type: 'error', error: new ProviderError(`${provider}: ${who} ended before the message was complete`, { provider, kind: 'UNKNOWN' }) };
}

function hookFailed(provider: string, entry: ModelMiddleware, hook: keyof ModelMiddleware, error: unknown): ProviderError {
  return new ProviderError(`${provider}: middleware ${entry.name} failed in ${hook}: ${message(error)}`, { provider, kind: 'UNKNOWN' });
}

// Hooks are our own code, but what they throw may quote a request: keys never reach the message.
function message(error: unknown): string {
  return redactSecrets(error instanceof Error ? error.message : String(error));
}

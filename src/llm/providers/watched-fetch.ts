/**
 * Lets an {@link IdleWatch} hear every byte of a streamed response body. The SDKs hand on only
 * the events they parse and drop keep-alives (Anthropic's `ping`, SSE comments), so a watch fed
 * from the events alone would take a stream that is alive but thinking for a silent one.
 */
import type { IdleWatch } from './idle-watch.ts';

/** Where a request's init carries its watch to {@link watchedFetch} (never sent anywhere). */
const watchKey = Symbol('operator.idleWatch');

/**
 * The per-request SDK option (`fetchOptions`) that hands `watch` to the {@link watchedFetch} the
 * client was made with. Both SDKs pass unknown init properties through to their `fetch`.
 */
export function watchedRequest(watch: IdleWatch): Record<never, never> {
  return { [watchKey]: watch };
}

/**
 * Wraps `base` (the SDK's transport): a request made with {@link watchedRequest} gets a response
 * whose body tells the watch of each piece as it is read. Other requests pass unchanged.
 */
export function watchedFetch(base: typeof fetch): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const watch = (init as Record<symbol, IdleWatch | undefined> | undefined)?.[watchKey];
    if (watch === undefined) return base(input, init);
    const { [watchKey]: _watch, ...rest } = init as RequestInit & Record<symbol, unknown>;
    const response = await base(input, rest);
    if (!response.ok || response.body === null) return response;
    return withBody(response, tap(response.body as AsyncIterable<unknown>, () => watch.heard()));
  }) as typeof fetch;
}

/**
 * Reads `body` (a web stream or, from node-fetch, a Node stream: both are async iterables),
 * calling `onPiece` for each piece as the reader takes it, so a reader that is busy elsewhere
 * pulls nothing and hears nothing. Ending the iteration early ends the body's.
 */
async function* tap<T>(body: AsyncIterable<T>, onPiece: () => void): AsyncGenerator<T, void, undefined> {
  for await (const piece of body) {
    onPiece();
    yield piece;
  }
}

/**
 * `response` with `body` in place of its own. Everything else is read from the response itself
 * (methods bound to it: Node's own Response keeps its state in private fields). The SDKs read a
 * streamed body only by iterating it, which an async generator supports.
 */
function withBody(response: Response, body: AsyncIterable<unknown>): Response {
  return new Proxy(response, {
    get(target, property) {
      if (property === 'body') return body;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

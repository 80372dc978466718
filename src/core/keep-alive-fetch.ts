/**
 * The HTTP transport of the SDKs operator drives (the model providers' and grammy): node-fetch
 * over `node:http` / `node:https` with keep-alive agents, given to each SDK as its `fetch`.
 *
 * Why not Node's built-in `fetch`: in Node 20 it runs undici behind WHATWG streams and costs
 * about twice the CPU per call (measured against this project's fake servers: a grammy
 * `sendMessage` took 0.8-1.4 ms of CPU through it and 0.4-0.6 ms through this transport; a small
 * streamed Anthropic call 1.2-1.8 ms and 0.8-1.1 ms). Under load those calls are most of a turn.
 *
 * node-fetch loads on first need ({@link loadKeepAliveFetch}: the Telegram channel as it starts,
 * a model provider as it is made); until then calls go through Node's own `fetch`, which behaves
 * the same for these SDKs. In dist/ it loads in about 30 ms of CPU: the bundle gives it Node's
 * URL for the whatwg-url it imports and never uses on Node (bin/build.js), which took another 50.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type NodeFetch from 'node-fetch';

/**
 * Idle connections are closed after this long: servers close theirs after a few seconds, and a
 * request must not be sent on a connection the server is closing.
 */
const idleSocketMs = 4_000;

/** What node-fetch takes as a body. */
type NodeFetchBody = NonNullable<Parameters<typeof NodeFetch>[1]>['body'];

let agents: { http: HttpAgent; https: HttpsAgent } | undefined;
let loaded: typeof fetch | undefined;
let loading: Promise<typeof fetch> | undefined;

/** Loads the transport (once); later calls of {@link keepAliveFetch} use it. */
export function loadKeepAliveFetch(): Promise<typeof fetch> {
  loading ??= import('node-fetch').then(({ default: nodeFetch }) => {
    const pool = (agents ??= { http: new HttpAgent({ keepAlive: true, timeout: idleSocketMs }), https: new HttpsAgent({ keepAlive: true, timeout: idleSocketMs }) });
    const agent = (url: URL) => (url.protocol === 'http:' ? pool.http : pool.https);
    loaded = ((input: string | URL, init?: RequestInit) =>
      nodeFetch(typeof input === 'string' ? input : input.toString(), { ...(init as Parameters<typeof nodeFetch>[1]), body: nodeBody(init?.body), agent })) as unknown as typeof fetch;
    return loaded;
  });
  return loading;
}

/**
 * A request body node-fetch can send. It takes strings, buffers and Node streams, but would
 * send a web `ReadableStream` (grammy's multipart uploads) as the text "[object ReadableStream]".
 */
function nodeBody(body: RequestInit['body'] | undefined): NodeFetchBody {
  return (body instanceof ReadableStream ? Readable.fromWeb(body as NodeReadableStream) : body) as NodeFetchBody;
}

/**
 * A `fetch` for an SDK's `fetch` option: the keep-alive transport once loaded, Node's own
 * `fetch` before.
 *
 * @example
 * const client = new Anthropic({ apiKey, fetch: keepAliveFetch });
 * void loadKeepAliveFetch();
 */
export const keepAliveFetch = ((input: string | URL, init?: RequestInit) => (loaded ?? globalThis.fetch)(input, init)) as typeof fetch;

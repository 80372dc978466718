/**
 * The HTTP transport under the provider SDKs: node-fetch over `node:http` / `node:https` with
 * keep-alive agents, given to the Anthropic and OpenAI SDKs as their `fetch`. The SDKs stay the
 * same (requests, SSE parsing, errors); only the transport changes.
 *
 * Why not Node's built-in `fetch`: in Node 20 it runs undici behind WHATWG streams and costs about
 * half as much CPU again per streamed call (measured on this project's fake model server: a small
 * streamed Anthropic call took 1.2-1.8 ms of CPU through the built-in fetch and 0.8-1.1 ms through
 * this one, and 40% less wall time). At gateway load that is the largest single cost of a turn.
 */
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import nodeFetch, { type RequestInit as NodeFetchInit } from 'node-fetch';

/**
 * Idle connections are closed after this long: providers close theirs after a few seconds, and a
 * request must not be sent on a connection the server is closing.
 */
const idleSocketMs = 4_000;

const agents = {
  http: new HttpAgent({ keepAlive: true, timeout: idleSocketMs }),
  https: new HttpsAgent({ keepAlive: true, timeout: idleSocketMs }),
};

/**
 * A `fetch` for the provider SDKs' `fetch` option.
 *
 * @example
 * const client = new Anthropic({ apiKey, fetch: providerFetch });
 */
export const providerFetch = ((input: string | URL, init?: RequestInit) => {
  const options = { ...(init as NodeFetchInit | undefined), agent: (url: URL) => (url.protocol === 'http:' ? agents.http : agents.https) };
  return nodeFetch(typeof input === 'string' ? input : input.toString(), options);
}) as unknown as typeof fetch;

/**
 * HTTP requests with every header under the test's control: `fetch` silently replaces `Host` and
 * may add headers of its own, so a test that forges `Host` (DNS rebinding) or `Origin` uses this.
 */
import { request } from 'node:http';

/** What the server answered. */
export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A request: method (GET), exactly these headers (plus Content-Length for a body), a body. */
export interface RawRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/**
 * Sends `init` to `url` and reads the whole answer.
 *
 * @example
 * const response = await rawRequest(`${origin}/healthz`, { headers: { host: 'rebind.attacker.example' } });
 */
export function rawRequest(url: string, init: RawRequest = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const headers = { ...init.headers, ...(init.body !== undefined ? { 'content-length': String(Buffer.byteLength(init.body)) } : {}) };
    const outgoing = request(url, { method: init.method ?? 'GET', headers, agent: false }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, headers: incoming.headers, body: Buffer.concat(chunks).toString('utf8') }));
      incoming.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(init.body);
  });
}

/** `name=value` of the cookie `name` a response set, or undefined. */
export function cookieFrom(response: RawResponse, name: string): string | undefined {
  const header = response.headers['set-cookie'];
  const cookies = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return cookies.map((cookie) => cookie.split(';')[0]!).find((pair) => pair.startsWith(`${name}=`));
}

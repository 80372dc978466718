/**
 * A request body read with a size limit, so a huge body is refused without being held: every
 * route that takes a body reads it through here, before any parsing or signature work.
 */

/** Limits of the request bodies the gateway takes (webhook events and JSON requests are small). */
export const bodyLimits = {
  /** A Telegram update, a Slack event or interaction, a control request: JSON, far below this. */
  json: 1024 * 1024,
} as const;

/**
 * The body of `request` as UTF-8 text, or undefined when it is (or says it is) longer than
 * `limit` bytes; reading stops at the limit.
 */
export async function readLimitedBody(request: Request, limit: number): Promise<string | undefined> {
  if (Number(request.headers.get('content-length') ?? '0') > limit) return undefined;
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * `request` with its body read into memory (at most `limit` bytes), for a handler that reads the
 * body itself; or a 413 response when it is longer. Reading stops at the limit.
 */
export async function withLimitedBody(request: Request, limit: number): Promise<Request | Response> {
  const body = await readLimitedBody(request, limit);
  if (body === undefined) return tooLarge(limit);
  return new Request(request.url, { method: request.method, headers: request.headers, body: request.method === 'GET' || request.method === 'HEAD' ? undefined : body });
}

/** The 413 answer for a body longer than `limit` bytes. */
export function tooLarge(limit: number): Response {
  return Response.json({ error: `the body must be at most ${limit} bytes` }, { status: 413 });
}

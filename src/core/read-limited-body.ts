/**
 * A request body read with a size limit, so a huge body is refused without being held: every
 * route that takes a body reads it through here, before any parsing or signature work, with its
 * limit from `body-limits.ts`. A `Content-Length` over the limit is refused before a byte is read;
 * a body without one (chunked) is read until it passes the limit, and no further.
 */

/**
 * The bytes of `request`'s body, or undefined when it is (or says it is) longer than `limit`
 * bytes; reading stops at the limit and the rest of the body is left unread.
 */
export async function readLimitedBytes(request: Request, limit: number): Promise<Uint8Array | undefined> {
  const length = request.headers.get('content-length');
  if (Number(length ?? '0') > limit) return undefined;
  if (!request.body) return new Uint8Array(0);
  // A body of a stated length within the limit cannot be longer (the connection frames it by
  // that length): read whole, in one call of the runtime's own.
  if (length !== null && /^\d+$/.test(length)) return new Uint8Array(await request.arrayBuffer());
  return readStreamWithin(request.body, limit);
}

/**
 * The bytes of `stream`, or undefined once they pass `limit`: reading stops there, and the rest
 * of the stream is cancelled, never held. For request bodies here and downloaded files alike.
 */
export async function readStreamWithin(stream: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array | undefined> {
  const reader = stream.getReader();
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
  const bytes = new Uint8Array(size);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/**
 * The body of `request` as UTF-8 text, or undefined when it is (or says it is) longer than
 * `limit` bytes; reading stops at the limit.
 *
 * @example
 * const text = await readLimitedBody(request, bodyLimits.control);
 * if (text === undefined) return tooLarge(bodyLimits.control);
 */
export async function readLimitedBody(request: Request, limit: number): Promise<string | undefined> {
  const bytes = await readLimitedBytes(request, limit);
  return bytes === undefined ? undefined : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
}

/**
 * A copy of `request` (URL, method, headers) whose body is `bytes`: for a handler that reads the
 * body itself, such as a platform SDK's, once the body was read here with a limit.
 */
export function requestWithBody(request: Request, bytes: Uint8Array): Request {
  const headers = new Headers(request.headers);
  // The copy's body is in memory: the length is what was read, and it is not chunked.
  headers.delete('transfer-encoding');
  headers.set('content-length', String(bytes.byteLength));
  const hasBody = request.method !== 'GET' && request.method !== 'HEAD';
  return new Request(request.url, { method: request.method, headers, body: hasBody ? bytes : undefined });
}

/** The 413 answer for a body longer than `limit` bytes (JSON, as every route's errors are). */
export function tooLarge(limit: number): Response {
  return Response.json({ error: `the body is too large: this route takes at most ${limit} bytes` }, { status: 413, headers: { 'cache-control': 'no-store' } });
}

/** A request body read with a size limit, so a huge body is refused without being held. */

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

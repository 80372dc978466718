/**
 * The limited body reader every route uses: exactly `limit` bytes pass and one more does not;
 * reading stops at the limit (counted on a stream that hands out only what is asked for); a
 * Content-Length over the limit is refused before a byte is read; text split across chunks is
 * decoded whole; the copy handed to an SDK holds the same bytes.
 */
import { describe, expect, it } from 'vitest';
import { bodyLimits } from '../../src/core/body-limits.ts';
import { readLimitedBody, readLimitedBytes, requestWithBody, tooLarge } from '../../src/core/read-limited-body.ts';

/** A request whose body is `chunks`, pulled one at a time; `pulled` counts the bytes handed out. */
function streamed(chunks: Uint8Array[], headers: Record<string, string> = {}): { request: Request; pulled(): number } {
  let pulled = 0;
  let next = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const chunk = chunks[next++];
        if (!chunk) return controller.close();
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
    },
    { highWaterMark: 0 },
  );
  const request = new Request('http://localhost/route', { method: 'POST', headers, body, duplex: 'half' } as RequestInit);
  return { request, pulled: () => pulled };
}

const bytes = (size: number, fill = 0x61) => new Uint8Array(size).fill(fill);

describe('readLimitedBytes', () => {
  it('takes a body of exactly the limit and refuses one byte more', async () => {
    expect((await readLimitedBytes(streamed([bytes(60), bytes(40)]).request, 100))?.byteLength).toBe(100);
    expect(await readLimitedBytes(streamed([bytes(60), bytes(41)]).request, 100)).toBeUndefined();
  });

  it('stops reading at the chunk that passes the limit', async () => {
    const body = streamed(Array.from({ length: 1000 }, () => bytes(10)));
    expect(await readLimitedBytes(body.request, 95)).toBeUndefined();
    expect(body.pulled()).toBe(100);
  });

  it('refuses a Content-Length over the limit without reading a byte', async () => {
    const body = streamed([bytes(10)], { 'content-length': '101' });
    expect(await readLimitedBytes(body.request, 100)).toBeUndefined();
    expect(body.pulled()).toBe(0);
  });

  it('reads a request without a body as empty', async () => {
    expect((await readLimitedBytes(new Request('http://localhost/'), 10))?.byteLength).toBe(0);
    expect(await readLimitedBody(new Request('http://localhost/', { method: 'POST' }), 10)).toBe('');
  });
});

describe('readLimitedBody', () => {
  it('decodes UTF-8 split across chunks whole', async () => {
    const encoded = new TextEncoder().encode('naïve 🙂');
    const text = await readLimitedBody(streamed([encoded.slice(0, 3), encoded.slice(3, 9), encoded.slice(9)]).request, 100);
    expect(text).toBe('naïve 🙂');
  });
});

describe('requestWithBody', () => {
  it('keeps the URL, method and headers, holds the bytes read, and says their length', async () => {
    const original = streamed([bytes(3, 0x7b), bytes(2, 0x7d)], { 'x-telegram-bot-api-secret-token': 's', 'content-type': 'application/json' });
    const read = (await readLimitedBytes(original.request, 10))!;
    const copy = requestWithBody(original.request, read);
    expect(copy.url).toBe('http://localhost/route');
    expect(copy.method).toBe('POST');
    expect(copy.headers.get('x-telegram-bot-api-secret-token')).toBe('s');
    expect(copy.headers.get('content-length')).toBe('5');
    expect(await copy.text()).toBe('{{{}}');
  });
});

describe('tooLarge', () => {
  it('is a 413 naming the limit, in JSON', async () => {
    const response = tooLarge(bodyLimits.webLogin);
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ error: `the body is too large: this route takes at most ${bodyLimits.webLogin} bytes` });
  });
});

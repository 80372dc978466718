/**
 * A downloaded file's bytes, read with a limit: what every platform's download of an inbound file
 * (a photo, an image attachment, a document) goes through, so a file larger than the limit is
 * never held whole, whatever size the platform declared for it. A `Content-Length` over the limit
 * is refused before a byte is read; otherwise the body is counted as it arrives (after any
 * content decoding, so a small compressed body cannot unpack past it) and reading stops there.
 */

import { readStreamWithin } from '../core/read-limited-body.ts';

/** Largest file taken from a chat, in bytes: what Telegram lets bots download (20 MB). */
export const maxInboundFileBytes = 20 * 1024 * 1024;

/** A file larger than the limit of its download. */
export class FileTooLargeError extends Error {
  override name = 'FileTooLargeError';
  /** The limit, in bytes. */
  readonly limit: number;
  /** Its size as declared, when known; undefined when reading passed the limit on an undeclared size. */
  readonly size: number | undefined;

  constructor(what: string, limit: number, size?: number) {
    super(`${what} is larger than the ${limit}-byte limit${size === undefined ? '' : ` (${size} bytes)`}`);
    this.limit = limit;
    this.size = size;
  }
}

/**
 * The body of `response`, or a {@link FileTooLargeError} once it is (or says it is) longer than
 * `maxBytes`; `what` names the file in the error (never a URL, which may hold a token).
 *
 * @example
 * const bytes = await cappedBytes(await fetch(url), maxBytes, `Discord attachment ${name}`);
 */
export async function cappedBytes(response: Response, maxBytes: number, what: string): Promise<Uint8Array> {
  const declared = response.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    throw new FileTooLargeError(what, maxBytes, Number(declared));
  }
  if (!response.body) return new Uint8Array(0);
  const bytes = await readStreamWithin(response.body, maxBytes);
  if (bytes === undefined) throw new FileTooLargeError(what, maxBytes);
  return bytes;
}

/**
 * Files the web chat sent, kept in memory for the page to download: at most a fixed number of
 * bytes in all, the oldest dropped first, none across restarts. Each is found by a random id
 * (16 bytes, hex) that only the link in its `file` event carries, so links cannot be guessed.
 */
import { randomBytes } from 'node:crypto';

/** A file kept for download. */
export interface StoredFile {
  name: string;
  mediaType: string;
  bytes: Uint8Array;
}

/** The id part of a file link. */
export const fileIdPattern = /^[0-9a-f]{32}$/;

/** Images a browser shows itself and that run no script: served inline (the page previews the same). */
const inlineTypes = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** Sent files in memory, bounded by their total size. */
export class WebFileStore {
  readonly maxBytes: number;
  // A Map iterates in insertion order: the first entry is the oldest.
  readonly #files = new Map<string, StoredFile>();
  #bytes = 0;

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes;
  }

  /** Keeps `file` (dropping the oldest until it fits) and returns its id. */
  add(file: StoredFile): string {
    for (const [id, oldest] of this.#files) {
      if (this.#bytes + file.bytes.byteLength <= this.maxBytes) break;
      this.#files.delete(id);
      this.#bytes -= oldest.bytes.byteLength;
    }
    const id = randomBytes(16).toString('hex');
    this.#files.set(id, file);
    this.#bytes += file.bytes.byteLength;
    return id;
  }

  /** The file with this id, unless it was dropped (or never existed). */
  get(id: string): StoredFile | undefined {
    return this.#files.get(id);
  }

  /** Forgets every file. */
  clear(): void {
    this.#files.clear();
    this.#bytes = 0;
  }
}

/** The answer to a file link: the bytes with safe headers, or 404 saying why links expire. */
export function fileResponse(file: StoredFile | undefined, maxBytes: number): Response {
  if (!file) {
    const text = `This file is no longer available. The web chat keeps only its most recent files (${Math.round(maxBytes / (1024 * 1024))} MiB in all), and none after a restart: ask for it again.\n`;
    return new Response(text, { status: 404, headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' } });
  }
  const mediaType = /^[\w.+-]+\/[\w.+-]+$/.test(file.mediaType) ? file.mediaType.toLowerCase() : 'application/octet-stream';
  // Anything but a plain image downloads; with nosniff and the sandbox policy, an HTML or SVG
  // file opened from its link cannot run script on the chat's origin.
  const disposition = inlineTypes.has(mediaType) ? 'inline' : 'attachment';
  return new Response(new Uint8Array(file.bytes), {
    headers: {
      'content-type': mediaType,
      'content-length': String(file.bytes.byteLength),
      'content-disposition': `${disposition}; ${dispositionFileName(file.name)}`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': "default-src 'none'; sandbox",
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
    },
  });
}

/** `filename="<ASCII stand-in>"; filename*=UTF-8''<the name>` (RFC 6266), quotes and controls removed. */
function dispositionFileName(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]|["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (character) => `%${character.charCodeAt(0).toString(16).toUpperCase()}`);
  return `filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

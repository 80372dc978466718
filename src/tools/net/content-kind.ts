/**
 * What a fetched body is, from its Content-Type (and its first bytes when there is none): a web
 * page to convert, text to return as it is, or binary the model cannot read. And the body's
 * characters, decoded by the charset it declares.
 */
import { looksBinary } from '../builtin/file-type.ts';

/** `html` is converted to markdown; `text` is returned as is; `binary` is refused. */
export type ContentKind = 'html' | 'text' | 'binary';

/** A body's media type (lowercase, without parameters; `unknown` when none was sent) and charset. */
export interface ContentType {
  mediaType: string;
  charset: string | undefined;
}

/** Media types outside `text/*` that are text all the same. */
const textTypes = new Set([
  'application/json',
  'application/xml',
  'application/javascript',
  'application/x-javascript',
  'application/ecmascript',
  'application/x-ndjson',
  'application/x-yaml',
  'application/yaml',
  'application/toml',
  'application/x-sh',
  'application/sql',
  'application/graphql',
  'application/x-www-form-urlencoded',
]);

/** Parses a Content-Type header (`text/html; charset=ISO-8859-1`). */
export function parseContentType(header: string | undefined): ContentType {
  if (!header) return { mediaType: 'unknown', charset: undefined };
  const [type = '', ...parameters] = header.split(';');
  let charset: string | undefined;
  for (const parameter of parameters) {
    const [name, value] = parameter.split('=', 2);
    if (name?.trim().toLowerCase() === 'charset' && value) charset = value.trim().replace(/^"|"$/g, '').toLowerCase();
  }
  return { mediaType: type.trim().toLowerCase() || 'unknown', charset };
}

/** The kind of a body of `type`; `head` (its first bytes) decides when the server sent no type. */
export function contentKind(type: ContentType, head: Uint8Array): ContentKind {
  const media = type.mediaType;
  if (media === 'text/html' || media === 'application/xhtml+xml') return 'html';
  if (media.startsWith('text/') || textTypes.has(media) || media.endsWith('+json') || media.endsWith('+xml')) return 'text';
  if (media !== 'unknown') return 'binary';
  if (looksBinary(head)) return 'binary';
  return /^\s*(<!doctype html|<html|<head|<body)/i.test(Buffer.from(head.subarray(0, 1024)).toString('latin1')) ? 'html' : 'text';
}

/**
 * The body's text: by the declared charset, else (for a page) a `<meta charset>` in its first
 * kilobyte, else UTF-8. An unknown charset falls back to UTF-8 rather than failing.
 */
export function decodeBody(body: Buffer, type: ContentType, kind: ContentKind): string {
  let charset = type.charset;
  if (!charset && kind === 'html') {
    const head = body.subarray(0, 1024).toString('latin1');
    charset = /<meta[^>]+charset\s*=\s*["']?([\w-]+)/i.exec(head)?.[1]?.toLowerCase();
  }
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

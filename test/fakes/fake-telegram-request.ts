/**
 * Reads the parameters of one Bot API call the ways Telegram accepts them: a query string,
 * `application/json`, `application/x-www-form-urlencoded` or `multipart/form-data` (grammy uses
 * the last for uploads, with every non-file field as a string, objects JSON-encoded).
 */
import type { IncomingMessage } from 'node:http';

/** A file part of a multipart upload. */
export interface UploadedFile {
  name: string;
  type: string;
  size: number;
  bytes: Uint8Array;
}

/** Fields whose string values Telegram reads as numbers. */
const numericFields = new Set([
  'chat_id',
  'message_id',
  'message_thread_id',
  'reply_to_message_id',
  'offset',
  'limit',
  'timeout',
  'cache_time',
  'max_connections',
  'from_chat_id',
]);

/** Fields whose string values hold JSON (objects, arrays, booleans). */
const jsonFields = new Set([
  'reply_markup',
  'reply_parameters',
  'entities',
  'caption_entities',
  'allowed_updates',
  'commands',
  'scope',
  'link_preview_options',
  'disable_notification',
  'protect_content',
  'drop_pending_updates',
  'show_alert',
]);

function coerce(name: string, value: string): unknown {
  if (numericFields.has(name) && /^-?\d+(\.\d+)?$/.test(value)) return Number(value);
  if (jsonFields.has(name)) {
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }
  return value;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * grammy writes part headers as `content-disposition:form-data;name="x";filename=a.txt` (no
 * spaces, filename unquoted), which Telegram accepts and undici's strict parser refuses; this
 * rewrites them to the usual form, leaving every other byte alone.
 */
function normalizePartHeaders(body: Buffer): Buffer {
  const text = body.toString('latin1').replace(
    /(^|\r\n)content-disposition:[ \t]*form-data;[ \t]*name="([^"]*)"(?:;[ \t]*filename=("?)([^\r\n]*?)\3)?\r\n/gi,
    (_whole, start: string, name: string, _quote: string, filename: string | undefined) =>
      `${start}Content-Disposition: form-data; name="${name}"${filename === undefined ? '' : `; filename="${filename}"`}\r\n`,
  );
  return Buffer.from(text, 'latin1');
}

/** Replaces `attach://<part>` references with the uploaded part they name. */
function resolveAttachments(params: Record<string, unknown>): Record<string, unknown> {
  for (const [name, value] of Object.entries(params)) {
    if (typeof value === 'string' && value.startsWith('attach://')) {
      const part = value.slice('attach://'.length);
      params[name] = params[part];
      delete params[part];
    }
  }
  return params;
}

/** The call's parameters, with uploaded files as {@link UploadedFile}s. */
export async function readParams(request: IncomingMessage, url: URL): Promise<Record<string, unknown>> {
  const params: Record<string, unknown> = {};
  for (const [name, value] of url.searchParams) params[name] = coerce(name, value);
  const body = await readBody(request);
  if (body.length === 0) return params;
  const contentType = request.headers['content-type'] ?? '';
  if (contentType.startsWith('application/json')) {
    return { ...params, ...(JSON.parse(body.toString('utf8')) as Record<string, unknown>) };
  }
  if (contentType.startsWith('application/x-www-form-urlencoded')) {
    for (const [name, value] of new URLSearchParams(body.toString('utf8'))) params[name] = coerce(name, value);
    return params;
  }
  if (contentType.startsWith('multipart/form-data')) {
    const form = await new Response(normalizePartHeaders(body), { headers: { 'content-type': contentType } }).formData();
    for (const [name, value] of form) {
      if (typeof value === 'string') {
        params[name] = coerce(name, value);
      } else {
        const bytes = new Uint8Array(await value.arrayBuffer());
        params[name] = { name: value.name, type: value.type, size: bytes.length, bytes } satisfies UploadedFile;
      }
    }
    return resolveAttachments(params);
  }
  throw new Error(`unsupported content type ${contentType}`);
}

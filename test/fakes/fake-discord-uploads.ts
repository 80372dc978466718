/**
 * Discord's multipart message bodies: a request with files is `multipart/form-data` with the
 * JSON body in a `payload_json` part and each file in a `files[n]` part, named by its
 * `filename` (or by the body's `attachments[].filename` for the same `id` n). Uploaded files are
 * hosted at the fake's `/attachments/...` path (as people's attachments are) and described as
 * Discord describes a message's attachments.
 */
import type { IncomingMessage } from 'node:http';
import type { APIAttachment } from 'discord.js';
import { DiscordApiFailure, discordErrors, fieldError } from './fake-discord-answers.ts';
import type { FakeDiscordState } from './fake-discord-state.ts';

/** A `files[n]` part of a multipart request. */
export interface FakeUpload {
  /** The n of `files[n]`. */
  index: number;
  filename: string;
  contentType: string;
  bytes: Uint8Array;
}

/** A REST request's JSON body (from `payload_json` for a multipart one) and its files. */
export interface RestBody {
  body: unknown;
  uploads: FakeUpload[];
}

/** Discord's default upload limit for a bot, per file. */
export const maxUploadBytes = 10 * 1024 * 1024;

const filePart = /^files\[(\d+)\]$/;

async function readBytes(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Reads a REST body: JSON, or a multipart form with `payload_json` and `files[n]` parts. */
export async function readRestBody(request: IncomingMessage): Promise<RestBody> {
  const bytes = await readBytes(request);
  const contentType = request.headers['content-type'] ?? '';
  if (!contentType.startsWith('multipart/form-data')) {
    return { body: bytes.length === 0 ? undefined : (JSON.parse(bytes.toString('utf8')) as unknown), uploads: [] };
  }
  const form = await new Response(bytes, { headers: { 'content-type': contentType } }).formData();
  const payload = form.get('payload_json');
  const uploads: FakeUpload[] = [];
  for (const [name, value] of form) {
    const index = filePart.exec(name)?.[1];
    if (index === undefined || typeof value === 'string') continue;
    uploads.push({ index: Number(index), filename: value.name, contentType: value.type, bytes: new Uint8Array(await value.arrayBuffer()) });
  }
  return { body: typeof payload === 'string' ? (JSON.parse(payload) as unknown) : {}, uploads };
}

/** Throws what Discord answers when an upload breaks a limit (too large, more than 10 files). */
export function validateUploads(uploads: readonly FakeUpload[]): void {
  if (uploads.some((upload) => upload.bytes.length > maxUploadBytes)) throw new DiscordApiFailure(413, 40005, 'Request entity too large');
  if (uploads.length > 10) throw discordErrors.invalidForm({ files: fieldError('BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.') });
}

/**
 * Hosts the uploads of a message in `channelId` and describes them as its `attachments`; a body's
 * `attachments: [{ id, filename }]` renames the file part `files[id]`.
 */
export function hostUploads(state: FakeDiscordState, channelId: string, uploads: readonly FakeUpload[], named: unknown, origin: string): APIAttachment[] {
  const names = new Map((Array.isArray(named) ? (named as { id?: unknown; filename?: unknown }[]) : []).map((entry) => [Number(entry.id), entry.filename]));
  return uploads.map((upload) => {
    const id = state.snowflake();
    const given = names.get(upload.index);
    const filename = typeof given === 'string' && given !== '' ? given : upload.filename;
    const contentType = upload.contentType || 'application/octet-stream';
    const path = `/attachments/${channelId}/${id}/${encodeURIComponent(filename)}`;
    state.attachments.set(path, { bytes: upload.bytes, contentType });
    const url = `${origin}${path}?ex=0&is=0&hm=0`;
    return { id, filename, size: upload.bytes.length, content_type: contentType, url, proxy_url: url };
  });
}

/**
 * Slack's external file upload, in its three steps: `files.getUploadURLExternal` (a `filename` and
 * a `length`) answers an `upload_url` on the fake's own origin and a `file_id`; the bytes are
 * POSTed to that URL, raw or as a multipart form (the WebClient sends a form), answered `200 OK`;
 * `files.completeUploadExternal` (`files` as JSON, `channel_id`, `thread_ts`) shares the uploaded
 * files into the channel or thread, where tests read them back (`sharedFiles`), and serves them at
 * their private URL. The upload URL needs no token, as Slack's does not.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SlackAnswer, SlackMethod } from './fake-slack-methods.ts';
import type { FakeSlackCall, FakeSlackState, FakeSlackUpload } from './fake-slack-state.ts';

/** The key `failNext` takes to fail the POST of the bytes to an upload URL. */
export const uploadFailureKey = 'upload_url';

/** The path prefix of upload URLs. */
export const uploadPathPrefix = '/upload/v1/';

/** Channel ids as Slack makes them: public `C…`, private `G…`, DM `D…`. */
const channelId = /^[CDG][A-Z0-9]{2,}$/;

function fail(error: string): SlackAnswer {
  return { ok: false, error };
}

const getUploadURLExternal: SlackMethod = (state, params, origin) => {
  const filename = typeof params.filename === 'string' ? params.filename : '';
  const length = Number(params.length);
  if (filename === '' || params.length === undefined) return fail('invalid_arguments');
  // Slack refuses a length of 0 (an empty file) as a missing argument.
  if (!Number.isInteger(length) || length <= 0) return fail('missing_argument');
  const id = `F0UP${String(state.nextNumber()).padStart(6, '0')}`;
  const uploadPath = `${uploadPathPrefix}${Buffer.from(`${id}:${filename}`).toString('base64url')}`;
  state.uploads.set(id, { id, filename, length, uploadPath, completed: false });
  return { ok: true, upload_url: `${origin}${uploadPath}`, file_id: id };
};

/** The `files` argument of a completion: `[{ id, title? }]`, as JSON text or already parsed. */
function filesArgument(value: unknown): { id: string; title?: string }[] | undefined {
  let parsed = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value) as unknown;
    } catch {
      return undefined;
    }
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return undefined;
  const entries = parsed as { id?: unknown; title?: unknown }[];
  if (!entries.every((entry) => typeof entry?.id === 'string')) return undefined;
  return entries.map((entry) => ({ id: String(entry.id), ...(typeof entry.title === 'string' ? { title: entry.title } : {}) }));
}

/** Completes one upload: hosts it at its private URL, shares it where it goes, describes it. */
function share(state: FakeSlackState, upload: FakeSlackUpload, title: string | undefined, where: { channel?: string; threadTs?: string }, origin: string): Record<string, unknown> {
  const bytes = upload.bytes!;
  const name = upload.filename;
  const mimetype = upload.mimetype ?? 'application/octet-stream';
  const path = `/files-pri/${state.bot.teamId}-${upload.id}/download/${encodeURIComponent(name)}`;
  upload.completed = true;
  state.files.set(upload.id, { id: upload.id, name, mimetype, bytes, path });
  if (where.channel !== undefined) {
    const thread = where.threadTs !== undefined ? { threadTs: where.threadTs } : {};
    state.sharedFiles.push({ id: upload.id, name, title: title ?? name, bytes, channel: where.channel, ...thread, ts: state.nextTs() });
  }
  return {
    id: upload.id,
    name,
    title: title ?? name,
    mimetype,
    size: bytes.length,
    user: state.bot.userId,
    url_private: `${origin}${path.replace('/download/', '/')}`,
    url_private_download: `${origin}${path}`,
  };
}

const completeUploadExternal: SlackMethod = (state, params, origin) => {
  const files = filesArgument(params.files);
  if (!files) return fail('invalid_arguments');
  const channel = typeof params.channel_id === 'string' && params.channel_id !== '' ? params.channel_id : undefined;
  const threadTs = typeof params.thread_ts === 'string' && params.thread_ts !== '' ? params.thread_ts : undefined;
  if (channel !== undefined && !channelId.test(channel)) return fail('channel_not_found');
  if (threadTs !== undefined && channel === undefined) return fail('invalid_arguments');
  const uploads = files.map((file) => state.uploads.get(file.id));
  // An id never begun, already completed, or whose bytes never arrived.
  if (uploads.some((upload) => !upload || upload.completed || !upload.bytes)) return fail('file_not_found');
  const shared = (uploads as FakeSlackUpload[]).map((upload, index) => share(state, upload, files[index]!.title, { channel, threadTs }, origin));
  state.notify();
  return { ok: true, files: shared };
};

/** The upload methods, by name. */
export const uploadMethods: Record<string, SlackMethod> = {
  'files.getUploadURLExternal': getUploadURLExternal,
  'files.completeUploadExternal': completeUploadExternal,
};

async function readBytes(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The uploaded file in a body: the raw bytes, or the first file part of a multipart form. */
async function uploadedFile(request: IncomingMessage): Promise<{ bytes: Uint8Array; mimetype?: string } | undefined> {
  const body = await readBytes(request);
  const contentType = request.headers['content-type'] ?? '';
  if (!contentType.startsWith('multipart/form-data')) return { bytes: new Uint8Array(body) };
  const form = await new Response(body, { headers: { 'content-type': contentType } }).formData();
  for (const [, value] of form) {
    if (typeof value !== 'string') return { bytes: new Uint8Array(await value.arrayBuffer()), ...(value.type !== '' ? { mimetype: value.type } : {}) };
  }
  return undefined;
}

/** Answers a POST to an upload URL (`path`): stores the bytes of the upload it names. */
export async function receiveUpload(state: FakeSlackState, request: IncomingMessage, response: ServerResponse, path: string): Promise<void> {
  const upload = [...state.uploads.values()].find((candidate) => candidate.uploadPath === path);
  const file = await uploadedFile(request);
  const call: FakeSlackCall = { method: uploadFailureKey, params: { filename: upload?.filename, size: file?.bytes.length }, status: 200 };
  state.calls.push(call);
  const failure = state.takeFailure(uploadFailureKey, call.params);
  const answer = (status: number, text: string) => {
    call.status = status;
    state.notify();
    response.writeHead(status, { 'content-type': 'text/plain' }).end(text);
  };
  if (failure && 'dropConnection' in failure) {
    call.status = 0;
    state.notify();
    response.socket?.destroy();
    return;
  }
  if (failure) return answer('status' in failure ? failure.status : 400, 'status' in failure ? (failure.body ?? 'upload failed') : failure.error);
  if (!upload || upload.completed) return answer(404, 'Not Found');
  if (!file) return answer(400, 'no file in the form');
  upload.bytes = file.bytes;
  if (file.mimetype !== undefined) upload.mimetype = file.mimetype;
  answer(200, `OK - ${file.bytes.length}`);
}

/**
 * Where a turn on Workers gets the bytes of a file a person sent: from R2 (`FILES`, through
 * unstorage: `cloudflare-storage.ts`) when an earlier try of the turn kept it there, else from its
 * platform by the reference the webhook kept (Telegram's `file_id`, Slack's private URL), then
 * kept in R2 under its conversation and message, so a turn run again finds it (and never
 * another's). A download stops at its limit; its errors never show a token.
 */
import { Api } from 'grammy/web';
import type { Storage } from 'unstorage';
import { createFileDownloader } from '../channels/slack/attachments.ts';
import { downloadFile } from '../channels/telegram/attachments.ts';
import { createCallTelegram, defaultRetryPolicy } from '../channels/telegram/call-telegram.ts';
import { createScrub } from '../channels/telegram/telegram-errors.ts';
import { FileTooLargeError } from '../channels/capped-bytes.ts';
import { keySegment } from '../gateway/dedupe.ts';
import { safeFileName } from '../gateway/files/file-names.ts';
import type { InboxEntry } from '../gateway/inbox.ts';
import { filesStorage } from './cloudflare-storage.ts';
import { defaultSlackApiUrl } from './slack-web-api.ts';
import type { WorkerEnv } from './worker-env.ts';

/**
 * A platform's download by reference, at most `maxBytes` (a larger file fails with a
 * `FileTooLargeError`); its errors never show a token (see `downloaderFor`).
 */
type Download = (ref: string, name: string, maxBytes: number) => Promise<Uint8Array>;

/** Where one turn gets its files: the bucket (if bound) and the platforms' downloads. */
export interface FileSource {
  env: WorkerEnv;
  /** The `FILES` bucket through unstorage; undefined without the binding. */
  files: Storage | undefined;
  /** The turn runs again: only what R2 kept is read, nothing is downloaded. */
  replay: boolean;
  downloads: Map<string, Download | undefined>;
}

/** A file that cannot be fetched here: no reference was kept for it, or the Worker cannot download from its platform. */
export class NotFetchableError extends Error {
  constructor(readonly platform: string) {
    super(`files from ${platform} are not read on Workers`);
  }
}

/** The source of one turn's files. */
export function fileSource(env: WorkerEnv, replay: boolean): FileSource {
  return { env, files: filesStorage(env), replay, downloads: new Map() };
}

/** A file of a message as a turn reads it: which, where its platform keeps it, and what it is. */
export interface KeptFile {
  entry: InboxEntry;
  /** Its place among the message's attachments (from 0). */
  index: number;
  /** The platform's reference the webhook kept, if any. */
  ref: string | undefined;
  name: string;
  mediaType: string;
}

/**
 * The bytes of `file`: from R2 when kept, else downloaded (at most `maxBytes`) and kept (without
 * the bucket, downloaded only); undefined when the turn runs again and R2 kept none. Throws a
 * `FileTooLargeError` past `maxBytes`, a {@link NotFetchableError} when it cannot be fetched, or
 * the download's own error (which names neither its URL nor a token).
 */
export async function keptBytes(source: FileSource, file: KeptFile, maxBytes: number): Promise<Uint8Array | undefined> {
  const { files } = source;
  // Under its conversation and message, so a turn run again finds it (and never another's).
  const key = keptKey(file);
  // Raw: the R2 driver gives the object's bytes (an ArrayBuffer), and puts bytes as they are.
  const kept = files && (await files.getItemRaw<ArrayBuffer>(key));
  if (kept) return new Uint8Array(kept);
  if (source.replay) return undefined;
  const platform = file.entry.address.platform;
  if (!source.downloads.has(platform)) source.downloads.set(platform, downloaderFor(platform, source.env));
  const download = source.downloads.get(platform);
  if (file.ref === undefined || !download) throw new NotFetchableError(platform);
  // The download stops at the limit too: a declared size may be missing or wrong.
  const bytes = await download(file.ref, file.name, maxBytes);
  if (bytes.length > maxBytes) throw new FileTooLargeError(`the file ${file.name}`, maxBytes, bytes.length);
  // The R2 driver hands these options to R2's put: the content type and name are kept with it.
  const named = file.entry.attachments[file.index]?.name ?? file.name;
  await files?.setItemRaw(key, bytes, { httpMetadata: { contentType: file.mediaType }, customMetadata: { name: named } });
  return bytes;
}

/** Where `file` is kept in R2: `<conversation>/<message>/<n>-<name>`. */
function keptKey(file: KeptFile): string {
  return `${keySegment(file.entry.sessionKey)}/${keySegment(file.entry.dedupeKey)}/${file.index + 1}-${file.name}`;
}

/** A file's name made safe for a key; a photo without one (Telegram's) is `photo.jpg`. */
export function fileNameOf(name: string | undefined, mediaType: string, image: boolean): string {
  if (name !== undefined || !image) return safeFileName(name);
  const extension = /^image\/(\w+)$/.exec(mediaType)?.[1]?.replace(/^jpeg$/, 'jpg') ?? 'jpg';
  return `photo.${extension}`;
}

/**
 * How files are fetched from `platform` with the Worker's credentials: Telegram by getFile and its
 * file URL (whose token the errors never show: getFile's are scrubbed, the download's name only
 * the file's path), Slack by the private URL with the token sent to Slack's hosts only. Discord's
 * interactions, all that reach the Worker from Discord, bring no files: none for it.
 */
function downloaderFor(platform: string, env: WorkerEnv): Download | undefined {
  if (platform === 'telegram' && env.TELEGRAM_BOT_TOKEN) {
    const token = env.TELEGRAM_BOT_TOKEN;
    const apiRoot = (env.TELEGRAM_API_ROOT ?? 'https://api.telegram.org').replace(/\/+$/, '');
    const api = new Api(token, { apiRoot });
    const call = createCallTelegram(defaultRetryPolicy, createScrub(token));
    return (fileId, _name, maxBytes) => downloadFile(fileId, { token, apiRoot, getFile: (id) => call('getFile', () => api.getFile(id)) }, maxBytes);
  }
  if (platform === 'slack' && env.SLACK_BOT_TOKEN) {
    const download = createFileDownloader({ botToken: env.SLACK_BOT_TOKEN, trustedOrigins: ['https://files.slack.com', new URL(env.SLACK_API_URL ?? defaultSlackApiUrl).origin] });
    return (url, name, maxBytes) => download(url, { id: name }, maxBytes);
  }
  return undefined;
}

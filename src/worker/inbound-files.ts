/**
 * Files people send, on Workers: read by their turn and kept in R2 (`FILES`, through unstorage:
 * `cloudflare-storage.ts`). The webhook keeps each attachment's platform reference with the
 * message, as it must answer the platform at once; the object notes the references beside its
 * inbox entry (the inbox keeps what was attached, not where). The turn, which runs only for
 * people the access check let in, fetches each file from its platform once, keeps it in R2, and
 * reads it from there should the turn run again; the references go once the turn's reply is on
 * record. As on Node (`src/gateway/files/inbound-files.ts`), images go to the model as image parts
 * and documents are kept and the model told; with no file system for tools to open them, a small
 * UTF-8 text document is given inline instead.
 */
import { Api } from 'grammy/web';
import { FileTooLargeError, maxInboundFileBytes } from '../channels/capped-bytes.ts';
import { createFileDownloader } from '../channels/slack/attachments.ts';
import { downloadFile } from '../channels/telegram/attachments.ts';
import { createCallTelegram, defaultRetryPolicy } from '../channels/telegram/call-telegram.ts';
import { createScrub } from '../channels/telegram/telegram-errors.ts';
import { errorMessage } from '../core/errors.ts';
import { keySegment } from '../gateway/dedupe.ts';
import { formatBytes, mediaTypeOf, safeFileName } from '../gateway/files/file-names.ts';
import { tooLargeNotice, type TooLargeFile } from '../gateway/files/inbound-files.ts';
import type { InboxEntry } from '../gateway/inbox.ts';
import type { Storage } from 'unstorage';
import type { ImagePart } from '../llm/types.ts';
import type { Store } from '../store/store.ts';
import { filesStorage } from './cloudflare-storage.ts';
import { defaultSlackApiUrl } from './slack-web-api.ts';
import type { WireMessage } from './wire-message.ts';
import type { WorkerEnv } from './worker-env.ts';
import { utf8Text } from '../core/utf8-text.ts';

/** Largest text document given to the model inline, in bytes. */
export const maxInlineBytes = 256 * 1024;

/**
 * How much of a turn's first message images (as base64) and inline documents may fill, in bytes:
 * the agent keeps that message as one value in the object's storage, where a key and its value
 * may not pass 2 MB together. What does not fit is kept in R2 and named instead.
 */
const turnRoomBytes = 1_400_000;

/** How long the references wait for their turn: as long as the inbox keeps the message. */
const refsTtlSeconds = 86_400;

/** What a turn gives the model of its messages and their files. */
export interface TurnFiles {
  /** Each message's text, with a line (or an inline block) per file, in the order given. */
  texts: string[];
  images: ImagePart[];
  /** What to tell the people whose files were too large to take, one notice per message. */
  tooLarge: { entry: InboxEntry; text: string }[];
}

/** A conversation's files (see the module's comment). */
export interface InboundFiles {
  /** Notes `message`'s references beside its inbox entry (before it is taken). */
  note(message: WireMessage): Promise<void>;
  /** Reads the files of `entries`; `replay`: the turn runs again, and reads only what R2 kept. */
  read(entries: readonly InboxEntry[], options?: { replay?: boolean }): Promise<TurnFiles>;
  /**
   * Drops the references noted for `entries`, once nothing can read them again: their turn's reply
   * is on record and the messages are let go (the files stay in R2). Never fails: a note it could
   * not drop expires on its own.
   */
  forget(entries: readonly InboxEntry[]): Promise<void>;
}

/** What {@link createInboundFiles} works with: the Worker's variables, the object's store. */
export interface InboundFilesOptions {
  env: WorkerEnv;
  store: Store;
  log(line: string): void;
}

/**
 * A platform's download by reference, at most `maxBytes` (a larger file fails with a
 * `FileTooLargeError`); its errors never show a token (see `downloaderFor`).
 */
type Download = (ref: string, name: string, maxBytes: number) => Promise<Uint8Array>;

/** The files of one conversation's object. */
export function createInboundFiles({ env, store, log }: InboundFilesOptions): InboundFiles {
  return {
    async note(message) {
      const refs = message.attachments.map((attachment) => attachment.ref ?? null);
      if (refs.some((ref) => ref !== null)) await store.set(refsKey(message.dedupeKey), refs, { ttlSeconds: refsTtlSeconds });
    },

    async read(entries, options = {}) {
      const turn: TurnRead = { env, log, files: filesStorage(env), replay: options.replay === true, images: [], room: turnRoomBytes, downloads: new Map(), refused: [] };
      const texts: string[] = [];
      const tooLarge: TurnFiles['tooLarge'] = [];
      for (const entry of entries) {
        const refs = entry.attachments.length > 0 ? ((await store.get<(string | null)[]>(refsKey(entry.dedupeKey))) ?? []) : [];
        const lines: string[] = [];
        turn.refused = [];
        for (const index of entry.attachments.keys()) {
          const line = await readFile(turn, entry, index, refs[index] ?? undefined);
          if (line !== undefined) lines.push(line);
        }
        texts.push([entry.text, ...lines].filter((part) => part !== '').join('\n'));
        // A turn run again was told before: the person hears of it once.
        if (turn.refused.length > 0 && !turn.replay) tooLarge.push({ entry, text: tooLargeNotice(turn.refused) });
      }
      return { texts, images: turn.images, tooLarge };
    },

    async forget(entries) {
      for (const entry of entries) {
        if (entry.attachments.length === 0) continue;
        await store.delete(refsKey(entry.dedupeKey)).catch((error: unknown) => log(`${entry.sessionKey}: file references not dropped (they expire): ${errorMessage(error)}`));
      }
    },
  };
}

/** One turn's reading: the FILES bucket, the images so far, the room left, the platforms' downloads. */
interface TurnRead extends Omit<InboundFilesOptions, 'store'> {
  /** The `FILES` bucket through unstorage (`filesStorage`); undefined without the binding. */
  files: Storage | undefined;
  replay: boolean;
  images: ImagePart[];
  room: number;
  downloads: Map<string, Download | undefined>;
  /** The files of the message being read that were too large to take. */
  refused: TooLargeFile[];
}

/** Reads the `index`th file of `entry`; resolves to the line that tells the model of it, if any. */
async function readFile(turn: TurnRead, entry: InboxEntry, index: number, ref: string | undefined): Promise<string | undefined> {
  const attachment = entry.attachments[index]!;
  const mediaType = mediaTypeOf(attachment.mediaType);
  const image = attachment.kind === 'image';
  const name = fileNameOf(attachment.name, mediaType, image);
  const what = image ? 'an image' : `the file ${name}`;
  const files = turn.files;
  if (!files) return `[${what} came with this message but was not read: files are not kept on this Worker (no FILES bucket)]`;
  const platform = entry.address.platform;
  if (!turn.downloads.has(platform)) turn.downloads.set(platform, downloaderFor(platform, turn.env));
  const download = turn.downloads.get(platform);
  if (ref === undefined || !download) return `[${what} came with this message but was not read: files from ${platform} are not read on Workers]`;
  const tooLarge = (size: number | undefined) => {
    const stated = size === undefined ? `more than ${formatBytes(maxInboundFileBytes)}` : formatBytes(size);
    turn.refused.push({ image, name: image && attachment.name === undefined ? undefined : name, size });
    return `[${what} was not read: it is too large (${stated}; the limit is ${formatBytes(maxInboundFileBytes)})]`;
  };
  // Nothing is downloaded when the platform says the file is too large.
  if (attachment.size !== undefined && attachment.size > maxInboundFileBytes) return tooLarge(attachment.size);
  // Under its conversation and message, so a turn run again finds it (and never another's).
  const key = `${keySegment(entry.sessionKey)}/${keySegment(entry.dedupeKey)}/${index + 1}-${name}`;
  let bytes: Uint8Array;
  try {
    // Raw: the R2 driver gives the object's bytes (an ArrayBuffer), and puts bytes as they are.
    const kept = await files.getItemRaw<ArrayBuffer>(key);
    if (kept) bytes = new Uint8Array(kept);
    else if (turn.replay) return undefined;
    else {
      // The download stops at the limit too: a declared size may be missing or wrong.
      bytes = await download(ref, name, maxInboundFileBytes);
      if (bytes.length > maxInboundFileBytes) return tooLarge(bytes.length);
      // The R2 driver hands these options to R2's put: the content type and name are kept with it.
      await files.setItemRaw(key, bytes, { httpMetadata: { contentType: mediaType }, customMetadata: { name: attachment.name ?? name } });
    }
  } catch (error) {
    if (error instanceof FileTooLargeError) return tooLarge(error.size);
    // The error of a download names neither its URL nor the token (see `downloaderFor`).
    turn.log(`${entry.sessionKey}: ${what} not read: ${errorMessage(error)}`);
    return `[${what} came with this message but could not be read]`;
  }
  const size = `${mediaType}, ${formatBytes(bytes.length)}`;
  if (image) {
    const data = Buffer.from(bytes).toString('base64');
    if (data.length > turn.room) {
      const why = data.length > turnRoomBytes ? 'too large to show to the model here' : "not shown to the model: this turn's other files left no room for it";
      return `[an image came with this message (kept as ${name}, ${size}), ${why}]`;
    }
    turn.room -= data.length;
    turn.images.push({ type: 'image', data, mediaType });
    return undefined;
  }
  if (!isText(mediaType)) return `[file kept: ${name} (${size}), but files of this kind cannot be opened on Workers]`;
  if (bytes.length > maxInlineBytes || bytes.length > turn.room) return `[file kept: ${name} (${size}), but it is too large to read here (the limit is ${formatBytes(Math.min(maxInlineBytes, turn.room))})]`;
  // Named as text but not text (Latin-1, say, or binary): named, never given as mojibake.
  const text = utf8Text(bytes);
  if (text === undefined) return `[file kept: ${name} (${size}), but it is not UTF-8 text (another encoding, or binary), so it was not read here]`;
  turn.room -= bytes.length;
  // A fence longer than any run of backticks in the text, so the text cannot close it.
  const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((run) => run[0].length + 1)));
  return `[file: ${name} (${size})]\n${fence}\n${text}\n${fence}`;
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

/** A file's name made safe for a key; a photo without one (Telegram's) is `photo.jpg`. */
function fileNameOf(name: string | undefined, mediaType: string, image: boolean): string {
  if (name !== undefined || !image) return safeFileName(name);
  const extension = /^image\/(\w+)$/.exec(mediaType)?.[1]?.replace(/^jpeg$/, 'jpg') ?? 'jpg';
  return `photo.${extension}`;
}

/** Whether a document of `mediaType` is text the model can read inline. */
function isText(mediaType: string): boolean {
  const type = mediaType.toLowerCase();
  return type.startsWith('text/') || /^application\/(x-)?(json|csv|markdown|xml|yaml|ndjson)$/.test(type) || /\+(json|xml|yaml)$/.test(type);
}

/** Where a message's references are noted in its object's store. */
function refsKey(dedupeKey: string): string {
  return `files:${keySegment(dedupeKey)}`;
}


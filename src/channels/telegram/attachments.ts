/**
 * Photos and documents of a Telegram message as neutral {@link Attachment}s. Nothing is fetched
 * until `download()`: then getFile gives the file's path and the bytes come from
 * `<apiRoot>/file/bot<token>/<path>` (a URL that is never logged, since it holds the token).
 */
import type { Message } from 'grammy/types';
import { cappedBytes, FileTooLargeError, maxInboundFileBytes } from '../capped-bytes.ts';
import { DeliveryError, type Attachment } from '../types.ts';

/** Fetches a Telegram file's bytes by its file_id, at most `maxBytes`. */
export type DownloadFile = (fileId: string, maxBytes?: number) => Promise<Uint8Array>;

/**
 * A file of a message as Telegram names it: what it is, and the `file_id` getFile takes. The
 * Worker keeps this id with the message (its webhook cannot wait for a download), never a URL.
 */
export interface TelegramFile extends Omit<Attachment, 'download'> {
  fileId: string;
}

/**
 * Sound and video a message may carry, each passed on as a file (saved in the conversation's
 * folder like a document, its path named to the model), with the type and name Telegram gives or
 * the one its kind implies.
 */
const mediaKinds = [
  { key: 'audio', mediaType: 'audio/mpeg', extension: 'mp3', recording: 'audio' },
  { key: 'voice', mediaType: 'audio/ogg', extension: 'ogg', recording: 'voice' },
  { key: 'video', mediaType: 'video/mp4', extension: 'mp4' },
  // A round video note is a person talking to the camera: its sound is transcribed like a voice note's.
  { key: 'video_note', mediaType: 'video/mp4', extension: 'mp4', recording: 'video note' },
  { key: 'animation', mediaType: 'video/mp4', extension: 'mp4' },
] as const;

/** The files of a message: its largest photo size, its document, its sound or video. */
export function filesOf(message: Message): TelegramFile[] {
  const files: TelegramFile[] = [];
  if (message.photo && message.photo.length > 0) {
    const largest = message.photo.reduce((best, size) => (size.width * size.height > best.width * best.height ? size : best));
    files.push({ kind: 'image', mediaType: 'image/jpeg', ...(largest.file_size !== undefined ? { size: largest.file_size } : {}), fileId: largest.file_id });
  }
  if (message.document) {
    const document = message.document;
    files.push({
      kind: 'file',
      mediaType: document.mime_type ?? 'application/octet-stream',
      ...(document.file_name !== undefined ? { name: document.file_name } : {}),
      ...(document.file_size !== undefined ? { size: document.file_size } : {}),
      fileId: document.file_id,
    });
  }
  // A document that is also an animation is the same file: Telegram sets both.
  for (const kind of mediaKinds) {
    const media = message[kind.key] as { file_id: string; file_unique_id?: string; file_size?: number; mime_type?: string; file_name?: string; duration?: number } | undefined;
    if (!media || (kind.key === 'animation' && message.document)) continue;
    files.push({
      kind: 'file',
      mediaType: media.mime_type ?? kind.mediaType,
      name: media.file_name ?? `${kind.key.replace('_', '-')}-${message.message_id}.${kind.extension}`,
      ...(media.file_size !== undefined ? { size: media.file_size } : {}),
      ...('recording' in kind ? { recording: { kind: kind.recording, ...(typeof media.duration === 'number' ? { seconds: media.duration } : {}) } } : {}),
      fileId: media.file_id,
    });
  }
  return files;
}

/** The attachments of a message (see {@link filesOf}), each downloaded by its file_id. */
export function attachmentsOf(message: Message, download: DownloadFile): Attachment[] {
  return filesOf(message).map(({ fileId, ...file }) => ({ ...file, download: (options) => download(fileId, options?.maxBytes ?? maxInboundFileBytes) }));
}

/** What {@link downloadFile} needs of a bot. */
export interface FileSource {
  token: string;
  /** The Bot API root, without a trailing slash. */
  apiRoot: string;
  /** The Bot API's getFile (with the caller's retries and scrubbed errors). */
  getFile(fileId: string): Promise<{ file_path?: string; file_size?: number }>;
}

/**
 * A file's bytes by its file_id: getFile for its path, then the file from the Bot API's file root,
 * at most `maxBytes` (a larger file fails with a `FileTooLargeError`, the size getFile declares
 * checked before the download).
 */
export async function downloadFile(fileId: string, source: FileSource, maxBytes = maxInboundFileBytes): Promise<Uint8Array> {
  const file = await source.getFile(fileId);
  if (!file.file_path) throw new DeliveryError('Telegram getFile returned no file path', { retryable: false });
  if (file.file_size !== undefined && file.file_size > maxBytes) throw new FileTooLargeError(`Telegram file ${file.file_path}`, maxBytes, file.file_size);
  return fetchFileBytes(`${source.apiRoot}/file/bot${source.token}/${file.file_path}`, file.file_path, maxBytes);
}

/**
 * Downloads the file at `url`, at most `maxBytes`, with failures as {@link DeliveryError}s (or a
 * `FileTooLargeError`) that do not show the URL.
 */
export async function fetchFileBytes(url: string, filePath: string, maxBytes = maxInboundFileBytes): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    throw new DeliveryError(`Telegram file download failed (${filePath}): network error: ${reason.replace(/\/bot[^/\s]+/g, '/bot<token>')}`, { retryable: true });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new DeliveryError(`Telegram file download failed (${filePath}): HTTP ${response.status}`, { retryable: response.status === 429 || response.status >= 500 });
  }
  return cappedBytes(response, maxBytes, `Telegram file ${filePath}`);
}

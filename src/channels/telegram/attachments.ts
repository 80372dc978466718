/**
 * Photos and documents of a Telegram message as neutral {@link Attachment}s. Nothing is fetched
 * until `download()`: then getFile gives the file's path and the bytes come from
 * `<apiRoot>/file/bot<token>/<path>` (a URL that is never logged, since it holds the token).
 */
import type { Message } from 'grammy/types';
import { DeliveryError, type Attachment } from '../types.ts';

/** Fetches a Telegram file's bytes by its file_id. */
export type DownloadFile = (fileId: string) => Promise<Uint8Array>;

/** The attachments of a message: its largest photo size, its document. */
export function attachmentsOf(message: Message, download: DownloadFile): Attachment[] {
  const attachments: Attachment[] = [];
  if (message.photo && message.photo.length > 0) {
    const largest = message.photo.reduce((best, size) => (size.width * size.height > best.width * best.height ? size : best));
    attachments.push({
      kind: 'image',
      mediaType: 'image/jpeg',
      ...(largest.file_size !== undefined ? { size: largest.file_size } : {}),
      download: () => download(largest.file_id),
    });
  }
  if (message.document) {
    const document = message.document;
    attachments.push({
      kind: 'file',
      mediaType: document.mime_type ?? 'application/octet-stream',
      ...(document.file_name !== undefined ? { name: document.file_name } : {}),
      ...(document.file_size !== undefined ? { size: document.file_size } : {}),
      download: () => download(document.file_id),
    });
  }
  return attachments;
}

/** Downloads the file at `url`, with failures as {@link DeliveryError}s that do not show the URL. */
export async function fetchFileBytes(url: string, filePath: string): Promise<Uint8Array> {
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
  return new Uint8Array(await response.arrayBuffer());
}

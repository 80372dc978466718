/**
 * Discord attachments as neutral {@link Attachment}s. Nothing is fetched until `download()`:
 * the bytes come from the attachment's CDN URL, which needs no token (it is signed by Discord
 * and expires after a while, so a download much later can fail with 404).
 */
import type { APIAttachment } from 'discord.js';
import { cappedBytes, maxInboundFileBytes } from '../capped-bytes.ts';
import { DeliveryError, type Attachment } from '../types.ts';

/** Downloads an attachment's bytes from its URL, reading at most `maxBytes` (injectable transport). */
export type FetchBytes = (url: string, name: string, maxBytes?: number) => Promise<Uint8Array>;

/** The attachments of a message: images (by their content type) and other files. */
export function attachmentsOf(attachments: readonly APIAttachment[], fetchBytes: FetchBytes): Attachment[] {
  return attachments.map((attachment) => {
    const mediaType = attachment.content_type ?? 'application/octet-stream';
    return {
      kind: mediaType.startsWith('image/') ? 'image' : 'file',
      mediaType,
      name: attachment.filename,
      size: attachment.size,
      ...recordingOf(attachment, mediaType),
      download: (options) => fetchBytes(attachment.url, attachment.filename, options?.maxBytes ?? maxInboundFileBytes),
    };
  });
}

/**
 * A voice message (Discord gives it a waveform and a length) as a voice note, any other `audio/*`
 * file as audio, with its length when Discord gives it (the gateway transcribes them).
 */
function recordingOf(attachment: APIAttachment, mediaType: string): Pick<Attachment, 'recording'> {
  const voice = attachment.waveform !== undefined && attachment.duration_secs !== undefined;
  if (!voice && !mediaType.startsWith('audio/')) return {};
  const seconds = attachment.duration_secs;
  return { recording: { kind: voice ? 'voice' : 'audio', ...(seconds !== undefined && { seconds }) } };
}

/**
 * Downloads with `fetch`, at most `maxBytes` (a larger file fails with a `FileTooLargeError`),
 * with failures as {@link DeliveryError}s naming the file, not the signed URL.
 */
export async function fetchAttachmentBytes(url: string, name: string, maxBytes = maxInboundFileBytes): Promise<Uint8Array> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    const reason = error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error);
    throw new DeliveryError(`Discord attachment download failed (${name}): network error: ${reason}`, { retryable: true });
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new DeliveryError(`Discord attachment download failed (${name}): HTTP ${response.status}`, { retryable: response.status === 429 || response.status >= 500 });
  }
  return cappedBytes(response, maxBytes, `Discord attachment ${name}`);
}

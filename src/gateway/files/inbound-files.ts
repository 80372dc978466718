/**
 * What a message brings besides text: images go to the model, documents are saved in the
 * conversation's own folder and the model is told where.
 */
import type { InboundMessage } from '../../channels/types.ts';
import { errorMessage } from '../../core/errors.ts';
import { formatBytes, mediaTypeOf, safeFileName, writeNewFile } from './file-names.ts';

/** Largest document taken from a chat, in bytes (what Telegram lets bots download). */
export const maxInboundFileBytes = 20 * 1024 * 1024;

/** The message's images as model image parts; one that cannot be downloaded is logged and left out. */
export async function imagesOf(message: InboundMessage, log: (line: string) => void) {
  const images = [];
  for (const attachment of message.attachments) {
    if (attachment.kind !== 'image') continue;
    try {
      const bytes = await attachment.download();
      images.push({ type: 'image' as const, data: Buffer.from(bytes).toString('base64'), mediaType: attachment.mediaType });
    } catch (error) {
      log(`${message.sessionKey}: image not downloaded: ${errorMessage(error)}`);
    }
  }
  return images;
}

/**
 * Saves the message's documents in `folder` (the conversation's own) and returns one line per
 * file for the model: where it is, or why it is not there.
 */
export async function saveDocuments(folder: string, message: InboundMessage, log: (line: string) => void): Promise<string[]> {
  const files = message.attachments.filter((attachment) => attachment.kind === 'file');
  const notes: string[] = [];
  for (const attachment of files) {
    const name = safeFileName(attachment.name);
    const tooLarge = (size: number) => `[file not saved: ${name} is too large (${formatBytes(size)}; the limit is ${formatBytes(maxInboundFileBytes)})]`;
    if (attachment.size !== undefined && attachment.size > maxInboundFileBytes) {
      notes.push(tooLarge(attachment.size));
      continue;
    }
    try {
      const bytes = await attachment.download();
      if (bytes.length > maxInboundFileBytes) {
        notes.push(tooLarge(bytes.length));
        continue;
      }
      const path = await writeNewFile(folder, name, bytes);
      notes.push(`[file saved: ${path} (${mediaTypeOf(attachment.mediaType)}, ${formatBytes(bytes.length)})]`);
    } catch (error) {
      notes.push(`[file not saved: ${name} could not be downloaded or written]`);
      log(`${message.sessionKey}: file not saved: ${errorMessage(error)}`);
    }
  }
  return notes;
}

/**
 * What a message brings besides text: images go to the model, documents are saved in the
 * conversation's own folder and the model is told where. Both are capped at the same size
 * ({@link maxInboundFileBytes}): the size the platform declares is checked before anything is
 * downloaded, and the download itself stops at the limit (a declared size may be missing or
 * wrong). A file refused for its size is named to the model, and the person is told in the chat
 * (by the gateway once an hour: the model's line lets the answer name the file after that).
 */
import { FileTooLargeError, maxInboundFileBytes } from '../../channels/capped-bytes.ts';
import type { Attachment, InboundMessage } from '../../channels/types.ts';
import { errorMessage } from '../../core/errors.ts';
import type { ImagePart } from '../../llm/types.ts';
import { formatBytes, mediaTypeOf, safeFileName, writeNewFile } from './file-names.ts';

export { maxInboundFileBytes };

/** Where the reading of a message's files reports: the log, and the person (a message in their chat). */
export interface InboundFileReports {
  log(line: string): void;
  /** Sends `text` to the person who sent the message; never fails (a failure is the caller's to log). */
  tell(text: string): Promise<void>;
  /**
   * Whether the person is to hear now that `count` of their files were too large (the gateway's
   * refusals: once an hour per person, see `refusals.ts`); unset: every time.
   */
  tooLarge?(count: number): boolean;
}

/** A message's images for the model, and a line for each one it does not get. */
export interface InboundImages {
  images: ImagePart[];
  /** For the model, one per image left out for its size. */
  notes: string[];
}

/**
 * The message's images as model image parts. One too large is not downloaded (or not past the
 * limit), named in `notes` and the person told; one that cannot be downloaded is logged and left out.
 */
export async function imagesOf(message: InboundMessage, reports: InboundFileReports): Promise<InboundImages> {
  const images: ImagePart[] = [];
  const refused: TooLargeFile[] = [];
  for (const attachment of message.attachments) {
    if (attachment.kind !== 'image') continue;
    const name = attachment.name === undefined ? undefined : safeFileName(attachment.name);
    try {
      const bytes = await download(attachment);
      images.push({ type: 'image', data: Buffer.from(bytes).toString('base64'), mediaType: attachment.mediaType });
    } catch (error) {
      if (error instanceof FileTooLargeError) refused.push({ image: true, name, size: error.size });
      else reports.log(`${message.sessionKey}: image not downloaded: ${errorMessage(error)}`);
    }
  }
  await tellRefused(refused, reports);
  return { images, notes: refused.map((refusal) => `[${describe(refusal)} came with this message but was not read: it is too large (${sizeOf(refusal)}; the limit is ${formatBytes(maxInboundFileBytes)})]`) };
}

/**
 * Reads one saved document as text for the model: what to add after the line saying where it was
 * saved, if anything (see `document-text.ts`, kept out of this module: the Worker imports it).
 */
export type DocumentReader = (bytes: Uint8Array, mediaType: string, name: string) => Promise<string | undefined>;

/**
 * Saves the message's documents in `folder` (the conversation's own) and returns one line per
 * file for the model: where it is, or why it is not there, and with `read` what it says. The
 * person is told of those refused for their size.
 */
export async function saveDocuments(folder: string, message: InboundMessage, reports: InboundFileReports, read?: DocumentReader): Promise<string[]> {
  const files = message.attachments.filter((attachment) => attachment.kind === 'file');
  const notes: string[] = [];
  const refused: TooLargeFile[] = [];
  for (const attachment of files) {
    const name = safeFileName(attachment.name);
    try {
      const bytes = await download(attachment);
      const path = await writeNewFile(folder, name, bytes);
      notes.push(`[file saved: ${path} (${mediaTypeOf(attachment.mediaType)}, ${formatBytes(bytes.length)})]`);
      // Read from the bytes just downloaded, the person's own upload: never from a path.
      const text = await read?.(bytes, attachment.mediaType, name);
      if (text !== undefined) notes.push(text);
    } catch (error) {
      if (error instanceof FileTooLargeError) {
        const refusal = { image: false, name, size: error.size };
        refused.push(refusal);
        notes.push(`[file not saved: ${name} is too large (${sizeOf(refusal)}; the limit is ${formatBytes(maxInboundFileBytes)})]`);
        continue;
      }
      notes.push(`[file not saved: ${name} could not be downloaded or written]`);
      reports.log(`${message.sessionKey}: file not saved: ${errorMessage(error)}`);
    }
  }
  await tellRefused(refused, reports);
  return notes;
}

/** A file left out for its size: an image or a document, its name if it has one, its size if known. */
export interface TooLargeFile {
  image: boolean;
  name: string | undefined;
  size: number | undefined;
}

/**
 * The attachment's bytes, at most {@link maxInboundFileBytes}: refused without a download when the
 * platform declares it larger, and cut off when it turns out larger while downloading.
 */
async function download(attachment: Attachment): Promise<Uint8Array> {
  if (attachment.size !== undefined && attachment.size > maxInboundFileBytes) throw new FileTooLargeError('the file', maxInboundFileBytes, attachment.size);
  const bytes = await attachment.download({ maxBytes: maxInboundFileBytes });
  // A download that ignored the limit is still held to it.
  if (bytes.length > maxInboundFileBytes) throw new FileTooLargeError('the file', maxInboundFileBytes, bytes.length);
  return bytes;
}

/**
 * Tells the person, in one message, which of their files were too large to take, when
 * `reports.tooLarge` says they are to hear it now (the model is told of each file regardless).
 */
async function tellRefused(refused: readonly TooLargeFile[], reports: InboundFileReports): Promise<void> {
  if (refused.length > 0 && (reports.tooLarge?.(refused.length) ?? true)) await reports.tell(tooLargeNotice(refused));
}

/**
 * What the person is told of the files of one message that were too large to take (on Node and on
 * Workers alike): which, how large, and the limit.
 */
export function tooLargeNotice(refused: readonly TooLargeFile[]): string {
  const what = refused.map((refusal) => `${describe(refusal, 'your')} (${sizeOf(refusal)})`);
  const list = what.length === 1 ? what[0]! : `${what.slice(0, -1).join(', ')} and ${what.at(-1)!}`;
  const one = refused.length === 1;
  return `${capitalize(list)} ${one ? 'is' : 'are'} larger than the ${formatBytes(maxInboundFileBytes)} I can take, so I did not take ${one ? 'it' : 'them'}. Send a smaller file, or a link to it.`;
}

/** For the model `an image` or `the image NAME`; for the person `your image`, `your image NAME` or `your file NAME`. */
function describe(refusal: TooLargeFile, article: 'the' | 'your' = 'the'): string {
  const kind = refusal.image ? 'image' : 'file';
  if (refusal.name === undefined) return article === 'your' ? `your ${kind}` : `an ${kind}`;
  return `${article} ${kind} ${refusal.name}`;
}

function sizeOf(refusal: TooLargeFile): string {
  return refusal.size === undefined ? `more than ${formatBytes(maxInboundFileBytes)}` : formatBytes(refusal.size);
}

function capitalize(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

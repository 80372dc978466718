/**
 * The text of a Word document (DOCX) a person sent, through mammoth: its paragraphs as plain text,
 * without styles or images. The archive is checked first (`zip-sizes.ts`), as mammoth unpacks its
 * parts whole into memory.
 */
import type { ReadText } from './document-text.ts';
import { checkUnpackedSize } from './zip-sizes.ts';

/** The most a DOCX may unpack to: far beyond any document's text, far below what hurts the process. */
export const maxDocxUnpackedBytes = 64 * 1024 * 1024;

/** Reads `bytes` as a DOCX, at most `maxChars` characters; throws when they are not one mammoth can read. */
export async function docxText(bytes: Uint8Array, maxChars: number): Promise<ReadText> {
  checkUnpackedSize(bytes, maxDocxUnpackedBytes);
  // Loaded with the first DOCX: most gateways never see one.
  const { default: mammoth } = await import('mammoth');
  // Both forms of the bytes: mammoth's Node code reads `buffer`, its browser code (what wrangler
  // bundles for the Worker, by the package's `browser` field) reads `arrayBuffer`. One copy serves both.
  const copy = bytes.slice();
  const result = await mammoth.extractRawText({ buffer: Buffer.from(copy.buffer, copy.byteOffset, copy.byteLength), arrayBuffer: copy.buffer });
  // mammoth ends each paragraph with a blank line; runs of them say no more than one.
  const text = result.value.replace(/\n{3,}/g, '\n\n').trim();
  if (text.length <= maxChars) return { text };
  return { text: text.slice(0, maxChars), unread: `${text.length - maxChars} of ${text.length} characters` };
}

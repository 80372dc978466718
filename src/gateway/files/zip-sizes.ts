/**
 * How large a ZIP archive (a DOCX is one) is once unpacked, checked before a library unpacks it:
 * a small archive can unpack to gigabytes (a "zip bomb"), and the library that reads a DOCX
 * unpacks its parts whole into memory, trusting nothing but what comes out. So the sizes the
 * central directory declares are added up and held to a limit, and each part is inflated once
 * here with its declared size as the most it may give: an archive that lies about a size is
 * refused rather than believed.
 */
import { inflateRawSync } from 'node:zlib';

/** Why an archive is not unpacked: not one this can read, or larger than allowed. */
export class ZipRefusedError extends Error {}

/** Where the end-of-central-directory record begins, searched from the end (it may carry a comment of up to 64 KB). */
function endRecordAt(view: DataView): number {
  const earliest = Math.max(0, view.byteLength - 22 - 0xffff);
  for (let at = view.byteLength - 22; at >= earliest; at--) if (view.getUint32(at, true) === 0x06054b50) return at;
  return -1;
}

/** One file of the archive as its central directory entry names it. */
interface ZipEntry {
  method: number;
  packed: number;
  unpacked: number;
  localHeader: number;
}

/** The central directory's entries; throws a {@link ZipRefusedError} when there is none to read. */
function entriesOf(view: DataView): ZipEntry[] {
  const end = endRecordAt(view);
  if (end < 0) throw new ZipRefusedError('it is not a ZIP archive');
  const count = view.getUint16(end + 10, true);
  const entries: ZipEntry[] = [];
  let at = view.getUint32(end + 16, true);
  for (let index = 0; index < count; index++) {
    if (at + 46 > view.byteLength || view.getUint32(at, true) !== 0x02014b50) throw new ZipRefusedError('its table of contents is damaged');
    const entry = { method: view.getUint16(at + 10, true), packed: view.getUint32(at + 20, true), unpacked: view.getUint32(at + 24, true), localHeader: view.getUint32(at + 42, true) };
    // ZIP64 marks sizes of 4 GB and more, never a document's.
    if (entry.packed === 0xffffffff || entry.unpacked === 0xffffffff) throw new ZipRefusedError('it declares parts of 4 GB or more');
    entries.push(entry);
    at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return entries;
}

/**
 * Checks that the archive `bytes` unpacks to at most `maxBytes` in all, each part to no more than
 * it declares; returns the total. Throws a {@link ZipRefusedError} saying why otherwise.
 */
export function checkUnpackedSize(bytes: Uint8Array, maxBytes: number): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries = entriesOf(view);
  const total = entries.reduce((sum, entry) => sum + entry.unpacked, 0);
  if (total > maxBytes) throw new ZipRefusedError(`it unpacks to more than ${maxBytes} bytes`);
  for (const entry of entries) {
    if (entry.method === 0) continue;
    if (entry.method !== 8) throw new ZipRefusedError(`it uses a compression method (${entry.method}) documents do not`);
    const at = entry.localHeader;
    if (at + 30 > view.byteLength || view.getUint32(at, true) !== 0x04034b50) throw new ZipRefusedError('a part of it is damaged');
    const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
    const packed = bytes.subarray(start, start + entry.packed);
    try {
      // One byte more than declared is enough to catch a lie, and no more is ever made.
      const unpacked = inflateRawSync(packed, { maxOutputLength: entry.unpacked + 1 });
      if (unpacked.length > entry.unpacked) throw new ZipRefusedError('a part of it unpacks to more than it says');
    } catch (error) {
      if (error instanceof ZipRefusedError) throw error;
      throw new ZipRefusedError(error instanceof RangeError ? 'a part of it unpacks to more than it says' : 'a part of it is damaged');
    }
  }
  return total;
}

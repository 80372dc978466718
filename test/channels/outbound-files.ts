/**
 * Files for outbound tests: written to a temp folder that lasts one test, described as the
 * gateway describes them ({@link OutboundFile}).
 */
import { mkdir, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { OutboundFile } from '../../src/channels/types.ts';
import { makeTempDir } from '../helpers/temp-dir.ts';

/** A file to write: its name, content and media type (default `application/octet-stream`). */
export interface TestFile {
  name: string;
  bytes: Uint8Array;
  mediaType?: string;
}

/** A text file's content. */
export function textBytes(text: string): Uint8Array {
  return new TextEncoder().encode(text);
}

/** `length` bytes counting up from 0, wrapping at 256 (every byte value, not text). */
export function binaryBytes(length: number): Uint8Array {
  return Uint8Array.from({ length }, (_, index) => index % 256);
}

/** Writes `files` to a fresh temp folder (removed after the test) and describes them. */
export async function writeOutboundFiles(files: readonly TestFile[]): Promise<OutboundFile[]> {
  const directory = await makeTempDir('operator-outbound-');
  return Promise.all(
    files.map(async (file, index) => {
      // A folder per file: two files may have the same name.
      const filePath = path.join(directory, String(index), file.name);
      await mkdir(path.dirname(filePath));
      await writeFile(filePath, file.bytes);
      return { path: filePath, name: file.name, mediaType: file.mediaType ?? 'application/octet-stream', size: file.bytes.length };
    }),
  );
}

/** A file that is not there (deleted before sending). */
export async function missingFile(name: string): Promise<OutboundFile> {
  const directory = await makeTempDir('operator-outbound-');
  return { path: path.join(directory, name), name, mediaType: 'text/plain', size: 12 };
}

/** A file of `size` zero bytes, made without writing them (sparse where the filesystem can). */
export async function sizedFile(name: string, size: number): Promise<OutboundFile> {
  const [file] = await writeOutboundFiles([{ name, bytes: new Uint8Array(0) }]);
  await truncate(file!.path, size);
  return { ...file!, size };
}

/**
 * Files from and to chats on disk: names made safe to write, new files that never overwrite,
 * sizes in words.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { makePrivateFolder, privateFileMode } from '../../core/private-modes.ts';

/** Longest file name kept, in UTF-8 bytes (file systems allow 255; a `-2` may be added). */
const maxFileNameBytes = 150;

/**
 * A file name from a chat made safe to write: its last path segment only, no control or
 * reserved characters, no leading dots (so never `..` nor hidden), at most 150 bytes with its
 * extension kept; `file` when nothing is left.
 */
export function safeFileName(name: string | undefined): string {
  const last = (name ?? '').split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const cleaned = last.replace(/[\u0000-\u001f\u007f<>:"|?*]/g, '_').trim().replace(/^\.+/, '');
  const extension = /\.[A-Za-z0-9]{1,16}$/.exec(cleaned)?.[0] ?? '';
  const stem = [...cleaned.slice(0, cleaned.length - extension.length)];
  while (stem.length > 0 && Buffer.byteLength(stem.join('') + extension) > maxFileNameBytes) stem.pop();
  const safe = stem.join('').trim() + extension;
  return safe.replace(/^\.+/, '') === '' ? 'file' : safe;
}

/** Writes `bytes` as a new file in `folder` named `name`, or `name-2`, `name-3`... when taken; returns its path. */
export async function writeNewFile(folder: string, name: string, bytes: Uint8Array): Promise<string> {
  // Private, like everything under OPERATOR_HOME: a document sent in a chat is that chat's.
  await makePrivateFolder(folder);
  const extension = /\.[A-Za-z0-9]{1,16}$/.exec(name)?.[0] ?? '';
  const stem = name.slice(0, name.length - extension.length);
  for (let copy = 1; copy <= 1_000; copy++) {
    const path = join(folder, copy === 1 ? name : `${stem}-${copy}${extension}`);
    let file;
    try {
      file = await open(path, 'wx', privateFileMode);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    try {
      await file.writeFile(bytes);
    } finally {
      await file.close();
    }
    return path;
  }
  throw new Error(`too many files named ${name} in ${folder}`);
}

/** A platform's media type, or `application/octet-stream` when it is not one. */
export function mediaTypeOf(mediaType: string): string {
  return /^[\w.+-]+\/[\w.+-]+$/.test(mediaType) ? mediaType : 'application/octet-stream';
}

/** `512 bytes`, `12.3 KB`, `4.0 MB`. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

// @ts-check
/**
 * Reading and writing single files for the file tools. Each read works on one open file
 * descriptor (its type, size and bytes all come from the same open file), so a path swapped for
 * a link between a check and a read cannot lead elsewhere; the sandbox bounds where any path can
 * lead at all.
 */
import { Buffer } from 'node:buffer';
import { open, mkdir, realpath, rm, lstat, stat, writeFile } from 'node:fs/promises';
import { TextDecoder } from 'node:util';
import { imageMediaType, looksBinary, sniffLength } from './file-kind.js';
import { dirname } from 'node:path';

/** @param {string} code @param {string} message */
function failure(code, message) {
  return Object.assign(new Error(message), { code });
}

/** @param {{ path: string }} request */
export async function statOp(request) {
  const info = await lstat(request.path);
  const followed = info.isSymbolicLink() ? await stat(request.path).catch(() => undefined) : info;
  return {
    type: followed === undefined ? 'broken-link' : followed.isDirectory() ? 'directory' : followed.isFile() ? 'file' : 'other',
    link: info.isSymbolicLink(),
    size: followed?.size ?? 0,
    mtimeMs: followed?.mtimeMs ?? 0,
  };
}

/**
 * Where a path really leads, links followed, as this sandbox sees it: a link to something the
 * seat may not see fails as missing.
 * @param {{ path: string }} request
 */
export async function realpathOp(request) {
  return { real: await realpath(request.path) };
}

/**
 * What `read_file` shows: an image (base64), numbered lines, or why neither.
 * @param {{ path: string, offset?: number, limit?: number, maxImageBytes: number, maxTextBytes: number }} request
 */
export async function readOp(request) {
  const handle = await open(request.path, 'r');
  try {
    const info = await handle.stat();
    if (info.isDirectory()) return { kind: 'directory' };
    if (!info.isFile()) return { kind: 'special' };
    const head = Buffer.alloc(sniffLength);
    const { bytesRead } = await handle.read(head, 0, sniffLength, 0);
    const start = head.subarray(0, bytesRead);
    const mediaType = imageMediaType(start);
    if (mediaType !== undefined) {
      if (info.size > request.maxImageBytes) return { kind: 'image-too-large', size: info.size };
      const data = await handle.readFile();
      return { kind: 'image', mediaType, size: info.size, data: data.toString('base64') };
    }
    if (looksBinary(start)) return { kind: 'binary' };
    if (request.limit === undefined && info.size > request.maxTextBytes) return { kind: 'text-too-large', size: info.size };
    return await numberedLines(handle, request.offset ?? 1, request.limit, request.maxTextBytes);
  } finally {
    await handle.close();
  }
}

/**
 * The lines from `offset` on, at most `limit` of them, `cat -n` style; a window of a huge log
 * costs only the bytes up to its end (and no more than `maxBytes` of lines are kept).
 * @param {import('node:fs/promises').FileHandle} handle @param {number} offset @param {number | undefined} limit @param {number} maxBytes
 */
async function numberedLines(handle, offset, limit, maxBytes) {
  /** @type {string[]} */
  const numbered = [];
  let lineNumber = 0;
  let kept = 0;
  let carry = '';
  let done = false;
  const decoder = new TextDecoder('utf-8');
  const take = (/** @type {string} */ line) => {
    lineNumber++;
    if (lineNumber < offset) return;
    const shown = `${String(lineNumber).padStart(6)}\t${line.endsWith('\r') ? line.slice(0, -1) : line}`;
    kept += shown.length;
    numbered.push(shown);
    if ((limit !== undefined && numbered.length >= limit) || kept > maxBytes) done = true;
  };
  const buffer = Buffer.alloc(1 << 16);
  let position = 0;
  while (!done) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    const text = carry + decoder.decode(buffer.subarray(0, bytesRead), { stream: true });
    const parts = text.split('\n');
    carry = parts.pop() ?? '';
    for (const part of parts) {
      take(part);
      if (done) break;
    }
  }
  if (!done) {
    carry += decoder.decode();
    if (carry !== '') take(carry);
  }
  if (lineNumber === 0) return { kind: 'empty' };
  if (numbered.length === 0) return { kind: 'past-end', lines: lineNumber };
  return { kind: 'text', text: numbered.join('\n') };
}

/**
 * A file's whole text, or null content when there is no such file (or a parent is not a folder).
 * @param {{ path: string, maxBytes?: number }} request
 */
export async function readTextOp(request) {
  let handle;
  try {
    handle = await open(request.path, 'r');
  } catch (error) {
    const code = /** @type {{ code?: string }} */ (error).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return { content: null };
    throw error;
  }
  try {
    const info = await handle.stat();
    if (info.isDirectory()) throw failure('EISDIR', 'is a directory');
    if (request.maxBytes !== undefined && info.size > request.maxBytes) return { content: null, tooLarge: true, size: info.size };
    return { content: (await handle.readFile()).toString('utf8') };
  } finally {
    await handle.close();
  }
}

/**
 * A regular file's bytes (base64), refused past `maxBytes` before they are read.
 * @param {{ path: string, maxBytes: number }} request
 */
export async function readBytesOp(request) {
  const handle = await open(request.path, 'r');
  try {
    const info = await handle.stat();
    if (info.isDirectory()) return { kind: 'directory' };
    if (!info.isFile()) return { kind: 'special' };
    if (info.size > request.maxBytes) return { kind: 'too-large', size: info.size };
    const data = await handle.readFile();
    return { kind: 'file', size: data.length, data: data.toString('base64') };
  } finally {
    await handle.close();
  }
}

/**
 * Creates or replaces a file (its folders made as needed). With `keepBefore`, answers what the
 * file held before (null: there was none), read in the same call, for the change log.
 * @param {{ path: string, content: string, encoding?: 'utf8' | 'base64', keepBefore?: boolean }} request
 */
export async function writeOp(request) {
  const before = request.keepBefore ? (await readTextOp({ path: request.path })).content : undefined;
  await mkdir(dirname(request.path), { recursive: true });
  await writeFile(request.path, request.content, request.encoding ?? 'utf8');
  return before === undefined ? {} : { before };
}

/** @param {{ path: string }} request */
export async function removeOp(request) {
  await rm(request.path, { force: true });
  return {};
}

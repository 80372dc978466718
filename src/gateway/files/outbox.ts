/**
 * Files on their way to a chat. When the agent sends a file, the gateway copies it into the
 * outbox (`<OPERATOR_HOME>/outbox/<random>/<name>`), so what goes out is what the agent sent even
 * if the workspace file changes or disappears before delivery, and a reply sent again after a
 * restart still has its files. The copies are removed once their reply is delivered or given up;
 * at start-up, copies no pending reply refers to are removed.
 */
import { randomBytes } from 'node:crypto';
import { chmod, copyFile, open, readdir, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { OutboundFile } from '../../channels/types.ts';
import { makePrivateFolder, privateFileMode } from '../../core/private-modes.ts';
import { imageMediaType, sniffLength } from '../../tools/builtin/file-type.ts';
import { safeFileName } from './file-names.ts';

/** Most files one reply carries. */
export const maxFilesPerReply = 10;

/** Files queued for the replies of each conversation, and their copies on disk. */
export class Outbox {
  readonly root: string;
  /** Files queued per session key, for the conversation's next reply. */
  #queued = new Map<string, OutboundFile[]>();

  constructor(root: string) {
    this.root = resolve(root);
  }

  /**
   * Copies `source` into the outbox and queues it for the next reply of `sessionKey`; `name` is
   * what the chat shows (default: the file's own name). The caller has checked the file.
   */
  async add(sessionKey: string, source: string, options: { name?: string; size: number }): Promise<OutboundFile> {
    const queued = this.#queued.get(sessionKey) ?? [];
    if (queued.length >= maxFilesPerReply) throw new Error(`at most ${maxFilesPerReply} files go with one reply; send the rest after it`);
    const name = safeFileName(options.name ?? basename(source));
    const folder = join(this.root, randomBytes(8).toString('hex'));
    await makePrivateFolder(folder);
    const path = join(folder, name);
    // A copy takes its source's mode; in its 0700 folder nobody else could open it meanwhile.
    await copyFile(source, path);
    await chmod(path, privateFileMode);
    const file: OutboundFile = { path, name, mediaType: await mediaTypeOfFile(path, name), size: options.size };
    queued.push(file);
    this.#queued.set(sessionKey, queued);
    return file;
  }

  /**
   * Writes `bytes` into the outbox as `name` and queues it for the next reply of `sessionKey`;
   * for a file read by a conversation's file worker, which the gateway itself never opens.
   */
  async addBytes(sessionKey: string, bytes: Uint8Array, name: string): Promise<OutboundFile> {
    const queued = this.#queued.get(sessionKey) ?? [];
    if (queued.length >= maxFilesPerReply) throw new Error(`at most ${maxFilesPerReply} files go with one reply; send the rest after it`);
    const safeName = safeFileName(name);
    const folder = join(this.root, randomBytes(8).toString('hex'));
    await makePrivateFolder(folder);
    const path = join(folder, safeName);
    await writeFile(path, bytes, { mode: privateFileMode, flag: 'wx' });
    const file: OutboundFile = { path, name: safeName, mediaType: await mediaTypeOfFile(path, safeName), size: bytes.byteLength };
    queued.push(file);
    this.#queued.set(sessionKey, queued);
    return file;
  }

  /** Files queued for `sessionKey`, taken (the next reply carries them). */
  take(sessionKey: string): OutboundFile[] {
    const queued = this.#queued.get(sessionKey) ?? [];
    this.#queued.delete(sessionKey);
    return queued;
  }

  /** Removes the copies of `files` (their reply was delivered, given up or never made). */
  async discard(files: readonly OutboundFile[] | undefined): Promise<void> {
    for (const file of files ?? []) {
      const folder = dirname(file.path);
      // Only folders of this outbox: a ledger entry is data, and data is not trusted with rm.
      if (dirname(folder) === this.root) await rm(folder, { recursive: true, force: true });
    }
  }

  /** Removes every copy not in `keep` (paths of files pending replies still carry). */
  async sweep(keep: readonly OutboundFile[]): Promise<number> {
    const kept = new Set(keep.map((file) => dirname(resolve(file.path))));
    let removed = 0;
    let folders: string[];
    try {
      folders = await readdir(this.root);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw error;
    }
    for (const folder of folders) {
      const path = join(this.root, folder);
      if (kept.has(path)) continue;
      await rm(path, { recursive: true, force: true });
      removed++;
    }
    return removed;
  }
}

/** An image's type from its first bytes, else the type its name's extension says, else binary. */
async function mediaTypeOfFile(path: string, name: string): Promise<string> {
  const file = await open(path, 'r');
  try {
    const head = new Uint8Array(sniffLength);
    const { bytesRead } = await file.read(head, 0, sniffLength, 0);
    const image = imageMediaType(head.subarray(0, bytesRead));
    if (image) return image;
  } finally {
    await file.close();
  }
  // mime-types builds its tables from a 200 KB database as it loads: only when a file is sent.
  const { default: mime } = await import('mime-types');
  return mime.lookup(name) || 'application/octet-stream';
}

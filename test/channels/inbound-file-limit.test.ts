/**
 * Inbound files are read with a limit, on every platform's download: a declared size over it is
 * refused before anything is fetched (Telegram's getFile size, a `Content-Length`), and a body
 * without one (or a compressed one that unpacks past it) is read only up to it, then the
 * connection is dropped. Downloads go through `fetch` to a real local HTTP server that counts what
 * it was asked for and sees when the client stops reading.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cappedBytes, FileTooLargeError, maxInboundFileBytes } from '../../src/channels/capped-bytes.ts';
import { attachmentsOf as discordAttachments, fetchAttachmentBytes } from '../../src/channels/discord/attachments.ts';
import { createFileDownloader } from '../../src/channels/slack/attachments.ts';
import { downloadFile, fetchFileBytes } from '../../src/channels/telegram/attachments.ts';

const limit = 64 * 1024;

/** A local file host: `/sized/<bytes>`, `/endless` (chunked, until the client goes), `/bomb` (gzip). */
interface FileHost {
  origin: string;
  /** Paths asked for, in order. */
  requests: string[];
  /** Resolves with the bytes `/endless` wrote once its client dropped the connection. */
  endlessClosed(): Promise<number>;
  close(): Promise<void>;
}

async function startFileHost(): Promise<FileHost> {
  const requests: string[] = [];
  let closed: (written: number) => void = () => undefined;
  let endless = new Promise<number>((resolve) => (closed = resolve));
  const bomb = gzipSync(Buffer.alloc(8 * limit));
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const path = request.url ?? '/';
    requests.push(path);
    const sized = /^\/sized\/(\d+)$/.exec(path);
    if (sized) {
      const size = Number(sized[1]);
      response.writeHead(200, { 'content-type': 'image/png', 'content-length': size });
      response.end(Buffer.alloc(size, 7));
      return;
    }
    if (path === '/bomb') {
      response.writeHead(200, { 'content-type': 'image/png', 'content-encoding': 'gzip', 'content-length': bomb.length });
      response.end(bomb);
      return;
    }
    if (path === '/endless') {
      response.writeHead(200, { 'content-type': 'image/png' });
      let written = 0;
      const chunk = Buffer.alloc(16 * 1024, 1);
      const write = () => {
        while (!response.destroyed) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', write);
        }
      };
      response.on('close', () => closed(written));
      write();
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    requests,
    endlessClosed: async () => {
      const written = await endless;
      endless = new Promise<number>((resolve) => (closed = resolve));
      return written;
    },
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

let host: FileHost;
beforeAll(async () => {
  host = await startFileHost();
});
afterAll(async () => {
  await host.close();
});

/** The error `promise` rejects with, which must be a {@link FileTooLargeError}. */
async function tooLarge(promise: Promise<unknown>): Promise<FileTooLargeError> {
  const error = await promise.then(() => undefined, (reason: unknown) => reason);
  expect(error).toBeInstanceOf(FileTooLargeError);
  return error as FileTooLargeError;
}

describe('cappedBytes', () => {
  it('reads a body within the limit whole', async () => {
    const bytes = await cappedBytes(await fetch(`${host.origin}/sized/${limit}`), limit, 'a file');
    expect(bytes).toEqual(new Uint8Array(limit).fill(7));
  });

  it('refuses a Content-Length over the limit, naming the size', async () => {
    const error = await tooLarge(cappedBytes(await fetch(`${host.origin}/sized/${limit + 1}`), limit, 'photo.jpg'));
    expect(error).toMatchObject({ size: limit + 1, limit });
    expect(error.message).toContain('photo.jpg');
  });

  it('stops reading an endless body at the limit and drops the connection', async () => {
    const error = await tooLarge(cappedBytes(await fetch(`${host.origin}/endless`), limit, 'an endless file'));
    expect(error.size).toBeUndefined();
    // The server saw the client go: the download did not run on to the end (there is none).
    expect(await host.endlessClosed()).toBeGreaterThan(0);
  });

  it('counts what a compressed body unpacks to, not what it weighs on the wire', async () => {
    await tooLarge(cappedBytes(await fetch(`${host.origin}/bomb`), limit, 'a small gzip'));
  });
});

describe("each platform's download of an inbound file", () => {
  it('Discord: stops at the limit given, and an attachment downloads with the inbound limit by default', async () => {
    await tooLarge(fetchAttachmentBytes(`${host.origin}/endless`, 'cat.png', limit));
    await host.endlessClosed();
    const limits: (number | undefined)[] = [];
    const [attachment] = discordAttachments([{ id: '1', filename: 'cat.png', size: 10, url: `${host.origin}/sized/10`, proxy_url: '', content_type: 'image/png' }], (url, name, maxBytes) => {
      limits.push(maxBytes);
      return fetchAttachmentBytes(url, name, maxBytes);
    });
    expect(await attachment!.download()).toHaveLength(10);
    await attachment!.download({ maxBytes: 5 }).then(() => expect.unreachable(), (error: unknown) => expect(error).toBeInstanceOf(FileTooLargeError));
    expect(limits).toEqual([maxInboundFileBytes, 5]);
  });

  it('Slack: stops at the limit while fetching a private file with the token', async () => {
    const download = createFileDownloader({ botToken: 'xoxb-file-limit-test', trustedOrigins: [host.origin] });
    await tooLarge(download(`${host.origin}/endless`, { id: 'F1' }, limit));
    await host.endlessClosed();
    expect(await download(`${host.origin}/sized/100`, { id: 'F2' }, limit)).toHaveLength(100);
  });

  it('Telegram: refuses by the size getFile declares before fetching, and stops at the limit when it declares none', async () => {
    const before = host.requests.length;
    const declared = downloadFile('file-1', { token: '123:secret-token', apiRoot: host.origin, getFile: async () => ({ file_path: 'photos/big.jpg', file_size: maxInboundFileBytes + 1 }) });
    const error = await tooLarge(declared);
    expect(error.size).toBe(maxInboundFileBytes + 1);
    expect(error.message).not.toContain('secret-token');
    expect(host.requests.slice(before)).toEqual([]);

    await tooLarge(fetchFileBytes(`${host.origin}/endless`, 'photos/endless.jpg', limit));
    await host.endlessClosed();
  });
});

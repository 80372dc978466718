/**
 * Reads a document (see `document-text.ts`) in a thread of its own, bounded in time and memory: a
 * PDF or DOCX made to keep the parser busy, or to swell, costs that thread and nothing else (the
 * gateway's conversations go on meanwhile); past the limit the thread is ended and the model told
 * the file could not be read. At most {@link maxReadingAtOnce} such threads run at once across the
 * gateway. The thread runs the built `dist/` code, as the gateway does.
 */
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { packageRoot } from '../../core/package-root.ts';
import { documentReadTimeoutMs, DocumentUnreadableError, readTookTooLong, type ReadText } from './document-text.ts';
import type { DocumentRequest } from './document-thread.ts';

/** The most memory the thread may take for its objects: a 20 MB document's parse fits well within it. */
const maxThreadHeapMb = 768;

/** Documents read at once across the gateway: each thread may take its heap, and the machine is shared. */
export const maxReadingAtOnce = 2;

let reading = 0;
const waitingReads: (() => void)[] = [];

/** Runs `work` once fewer than {@link maxReadingAtOnce} reads run; a finished read hands its place on. */
async function inTurn<T>(work: () => Promise<T>): Promise<T> {
  if (reading < maxReadingAtOnce) reading++;
  else await new Promise<void>((resolve) => waitingReads.push(resolve));
  try {
    return await work();
  } finally {
    const next = waitingReads.shift();
    if (next) next();
    else reading--;
  }
}

/** The thread's code, built with the gateway (`bin/build.js`). */
const threadFile = join(packageRoot, 'dist', 'gateway', 'files', 'document-thread.js');

/**
 * The text of a document, read in its own thread (same contract as `documentText`); a read that
 * runs past `timeoutMs` or its memory ends the thread and throws a {@link DocumentUnreadableError}.
 */
export function readInThread(bytes: Uint8Array, mediaType: string, name: string, maxChars: number, timeoutMs = documentReadTimeoutMs): Promise<ReadText | undefined> {
  return inTurn(() => readNow(bytes, mediaType, name, maxChars, timeoutMs));
}

/** {@link readInThread} without waiting for its turn. */
function readNow(bytes: Uint8Array, mediaType: string, name: string, maxChars: number, timeoutMs: number): Promise<ReadText | undefined> {
  return new Promise((resolve, reject) => {
    const thread = new Worker(threadFile, { resourceLimits: { maxOldGenerationSizeMb: maxThreadHeapMb } });
    let settled = false;
    const settle = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void thread.terminate();
      outcome();
    };
    const timer = setTimeout(() => settle(() => reject(readTookTooLong(timeoutMs))), timeoutMs);
    thread.once('message', (answer: { read?: ReadText; unreadable?: string }) =>
      settle(() => (answer.unreadable !== undefined ? reject(new DocumentUnreadableError(answer.unreadable)) : resolve(answer.read))),
    );
    thread.once('error', (error: Error & { code?: string }) =>
      settle(() => reject(new DocumentUnreadableError(error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? 'reading it needed more memory than a document may take' : 'reading it failed'))),
    );
    thread.once('exit', () => settle(() => reject(new DocumentUnreadableError('reading it failed'))));
    const request: DocumentRequest = { bytes: new Uint8Array(bytes), mediaType, name, maxChars };
    thread.postMessage(request, [request.bytes.buffer as ArrayBuffer]);
  });
}

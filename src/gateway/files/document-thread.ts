/**
 * The thread a document is read in (see `read-in-thread.ts`): one request, one answer. PDF.js and
 * mammoth work on what a person uploaded, which may be made to take long or to grow large; here a
 * stuck or swollen read is ended by killing the thread, and the gateway's own event loop never
 * waits on it.
 */
import { parentPort } from 'node:worker_threads';
import { documentText, DocumentUnreadableError } from './document-text.ts';

/** What the gateway asks of the thread. */
export interface DocumentRequest {
  bytes: Uint8Array;
  mediaType: string;
  name: string;
  maxChars: number;
}

parentPort?.once('message', (request: DocumentRequest) => {
  documentText(request.bytes, request.mediaType, request.name, request.maxChars).then(
    (read) => parentPort!.postMessage({ read }),
    (error: unknown) => parentPort!.postMessage({ unreadable: error instanceof DocumentUnreadableError ? error.message : 'reading it failed' }),
  );
});

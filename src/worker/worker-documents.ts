/**
 * Documents people send, read as text on Workers by the gateway's own reader
 * (`src/gateway/files/document-text.ts`: PDFs through unpdf, Word documents through mammoth's
 * code, text files), with the same limits (characters per turn, pages, the unpacked size of a
 * DOCX, 30 s a document) and the same fencing as on Node. Only how a read is bounded differs: on
 * Node it runs in a thread, killed past its time or memory; workerd has no threads, so
 *
 * - a read is given up at its deadline, and a PDF's stops there between pages (`documentText`'s
 *   signal); a single step that never yields cannot be interrupted, and runs into the platform's
 *   CPU limit instead;
 * - a read that stops the object itself (the isolate's memory or the request's CPU time, which the
 *   platform enforces by resetting the object) is noted durably before it starts, by the
 *   document's SHA-256: when the turn runs again, or the same file comes again within a day, it is
 *   named as not read instead of read again, so one file cannot keep its conversation from being
 *   answered.
 */
import { documentReadTimeoutMs, documentText, DocumentUnreadableError, readTookTooLong, type ReadDocument } from '../gateway/files/document-text.ts';
import type { Store } from '../store/store.ts';

/** How long a read that never ended keeps its document from being read again. */
const guardTtlSeconds = 86_400;

/** Why a document whose earlier read never ended is not read again, said to the model. */
export const stoppedReason = 'reading it before stopped the Worker (too large or too slow to read here)';

/** What guards the reads: the conversation's store, and a way to make its writes durable. */
export interface ReadGuard {
  store: Store;
  /** Resolves once the object's writes so far are on disk (`storage.sync()`). */
  durable(): Promise<void>;
  log(line: string): void;
}

/**
 * The Worker's way to read one document (for `documentReader`): refused at once when an earlier
 * read of the same bytes never ended, else read within `timeoutMs` with a durable note of the
 * read in progress, dropped once it is over however it ended.
 */
export function guardedRead(guard: ReadGuard, timeoutMs = documentReadTimeoutMs): ReadDocument {
  return async (bytes, mediaType, name, maxChars) => {
    const key = await readingKey(bytes);
    if ((await guard.store.get<number>(key)) !== null) throw new DocumentUnreadableError(stoppedReason);
    await guard.store.set(key, Date.now(), { ttlSeconds: guardTtlSeconds });
    // On disk before the read starts: a reset in the middle of it must find the note.
    await guard.durable();
    const controller = new AbortController();
    const reading = documentText(bytes, mediaType, name, maxChars, controller.signal);
    // The note goes once the read is over, however it ended (past the deadline too: a PDF stops at its next page).
    void reading.then(
      () => forget(guard, key),
      () => forget(guard, key),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        controller.abort();
        reject(readTookTooLong(timeoutMs));
      }, timeoutMs);
    });
    try {
      return await Promise.race([reading, deadline]);
    } finally {
      clearTimeout(timer);
    }
  };
}

/** Drops the note of a read in progress; a note not dropped expires on its own. */
async function forget(guard: ReadGuard, key: string): Promise<void> {
  await guard.store.delete(key).catch((error: unknown) => guard.log(`a document's reading note was not dropped (it expires): ${String(error)}`));
}

/** Where the note of a read of `bytes` in progress is kept: by their SHA-256, the same file's wherever it comes from. */
export async function readingKey(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes));
  return `document-reading:${Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

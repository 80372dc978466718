/**
 * Files people send, on Workers: read by their turn and kept in R2 (`kept-files.ts`). The webhook
 * keeps each attachment's platform reference with the message, as it must answer the platform at
 * once; the object notes the references beside its inbox entry (the inbox keeps what was
 * attached, not where). The turn, which runs only for people the access check let in, fetches
 * each file from its platform once, keeps it in R2, and reads it from there should the turn run
 * again; the references go once the turn's reply is on record. As on Node
 * (`src/gateway/turn-runner.ts`), recordings are transcribed (`worker-hearing.ts`), images go to
 * the model as image parts, and PDFs, Word documents and text files are read as text
 * (`worker-documents.ts`), fenced as the file's content; anything else is kept and named.
 */
import { FileTooLargeError, maxInboundFileBytes } from '../channels/capped-bytes.ts';
import { errorMessage } from '../core/errors.ts';
import { keySegment } from '../gateway/dedupe.ts';
import { documentReader, DocumentUnreadableError, maxDocumentChars } from '../gateway/files/document-text.ts';
import { formatBytes, mediaTypeOf } from '../gateway/files/file-names.ts';
import { tooLargeNotice, type DocumentReader, type TooLargeFile } from '../gateway/files/inbound-files.ts';
import type { InboxEntry } from '../gateway/inbox.ts';
import type { CostGate } from '../gateway/budget/budget-gate.ts';
import type { ImagePart } from '../llm/types.ts';
import type { Store } from '../store/store.ts';
import { fileNameOf, fileSource, keptBytes, NotFetchableError, type FileSource } from './kept-files.ts';
import type { WireMessage } from './wire-message.ts';
import { guardedRead } from './worker-documents.ts';
import type { WorkerEnv } from './worker-env.ts';
import { workerHearing } from './worker-hearing.ts';

/**
 * How much of a turn's first message images (as base64) and documents' text may fill, in bytes:
 * the agent keeps that message as one value in the object's storage, where a key and its value
 * may not pass 2 MB together. What does not fit is kept in R2 and named instead.
 */
const turnRoomBytes = 1_400_000;

/** How long the references wait for their turn: as long as the inbox keeps the message. */
const refsTtlSeconds = 86_400;

/** What a document's text takes of the room beyond its characters: the lines around it, its fences. */
const documentOverheadBytes = 1_000;

/** The fewest characters of a document worth giving: with less room left, none are read. */
const minimumDocumentChars = 1_000;

/** What a turn gives the model of its messages and their files. */
export interface TurnFiles {
  /** Each message's text, with the words of its recordings and a line (or a document's text) per file, in the order given. */
  texts: string[];
  images: ImagePart[];
  /** What to tell the people who sent them, in order: a recording not heard, files too large to take (one notice per message). */
  notices: { entry: InboxEntry; text: string }[];
}

/** A conversation's files (see the module's comment). */
export interface InboundFiles {
  /** Notes `message`'s references beside its inbox entry (before it is taken). */
  note(message: WireMessage): Promise<void>;
  /**
   * Reads the files of the messages of `admitted` (`admin`: its sender is one, whose caps a
   * transcription counts for); `replay`: the turn runs again from where it began, whose input
   * holds their words already: only images are read, from what R2 kept.
   */
  read(admitted: readonly { entry: InboxEntry; admin: boolean }[], options?: { replay?: boolean }): Promise<TurnFiles>;
  /**
   * Drops the references noted for `entries`, once nothing can read them again: their turn's reply
   * is on record and the messages are let go (the files stay in R2). Never fails: a note it could
   * not drop expires on its own.
   */
  forget(entries: readonly InboxEntry[]): Promise<void>;
}

/** What {@link createInboundFiles} works with: the Worker's variables, the object's store and spending. */
export interface InboundFilesOptions {
  env: WorkerEnv;
  store: Store;
  /** Resolves once the object's writes so far are on disk (a document's read is noted so first). */
  durable(): Promise<void>;
  /** The gate of the conversation `sessionKey`'s spending (a recording's transcription passes it). */
  spending(sessionKey: string): CostGate;
  log(line: string): void;
}

/** The files of one conversation's object. */
export function createInboundFiles(options: InboundFilesOptions): InboundFiles {
  const { store, log } = options;
  const hear = workerHearing(options);
  return {
    async note(message) {
      const refs = message.attachments.map((attachment) => attachment.ref ?? null);
      if (refs.some((ref) => ref !== null)) await store.set(refsKey(message.dedupeKey), refs, { ttlSeconds: refsTtlSeconds });
    },

    async read(admitted, readOptions = {}) {
      const replay = readOptions.replay === true;
      const read = guardedRead(options);
      const turn: TurnRead = {
        source: fileSource(options.env, replay),
        log,
        images: [],
        room: turnRoomBytes,
        refused: [],
        // The room left bounds the characters read too (each is a byte or more), so a document's
        // text is cut where it would not fit, and the rest named, as at the limit of characters.
        documents: documentReader(maxDocumentChars, (bytes, mediaType, name, maxChars) => {
          const room = turn.room - documentOverheadBytes;
          if (room < minimumDocumentChars) return Promise.reject(new DocumentUnreadableError("this turn's other files left no room for its text"));
          return read(bytes, mediaType, name, Math.min(maxChars, room));
        }),
      };
      const texts: string[] = [];
      const notices: TurnFiles['notices'] = [];
      for (const { entry, admin } of admitted) {
        const refs = entry.attachments.length > 0 ? ((await store.get<(string | null)[]>(refsKey(entry.dedupeKey))) ?? []) : [];
        // A turn run again has their words in its input: they are not heard (nor paid for) twice.
        const heard = replay ? undefined : await hear(turn.source, { entry, admin }, refs);
        const lines: string[] = [...(heard?.lines ?? [])];
        turn.refused = [];
        for (const index of entry.attachments.keys()) {
          if (heard?.transcribed.has(index)) continue;
          const line = await readFile(turn, entry, index, refs[index] ?? undefined);
          if (line !== undefined) lines.push(line);
        }
        texts.push([entry.text, ...lines].filter((part) => part !== '').join('\n'));
        for (const text of heard?.notices ?? []) notices.push({ entry, text });
        // A turn run again was told before; a person who sends more too large within the hour is not
        // told again (the model still gets each file's line), as on Node.
        if (turn.refused.length > 0 && !replay && (await tellTooLarge(store, entry))) notices.push({ entry, text: tooLargeNotice(turn.refused) });
      }
      return { texts, images: turn.images, notices };
    },

    async forget(entries) {
      for (const entry of entries) {
        if (entry.attachments.length === 0) continue;
        await store.delete(refsKey(entry.dedupeKey)).catch((error: unknown) => log(`${entry.sessionKey}: file references not dropped (they expire): ${errorMessage(error)}`));
      }
    },
  };
}

/** One turn's reading: where its files come from, the images so far, the room left, its documents' reader. */
interface TurnRead {
  source: FileSource;
  log(line: string): void;
  images: ImagePart[];
  room: number;
  /** The files of the message being read that were too large to take. */
  refused: TooLargeFile[];
  /** The turn's documents share one limit of characters, read one at a time (as on Node). */
  documents: DocumentReader;
}

/** Reads the `index`th file of `entry`; resolves to the line that tells the model of it, if any. */
async function readFile(turn: TurnRead, entry: InboxEntry, index: number, ref: string | undefined): Promise<string | undefined> {
  const attachment = entry.attachments[index]!;
  const mediaType = mediaTypeOf(attachment.mediaType);
  const image = attachment.kind === 'image';
  const name = fileNameOf(attachment.name, mediaType, image);
  const what = image ? 'an image' : `the file ${name}`;
  if (!turn.source.files) return `[${what} came with this message but was not read: files are not kept on this Worker (no FILES bucket)]`;
  const tooLarge = (size: number | undefined) => {
    const stated = size === undefined ? `more than ${formatBytes(maxInboundFileBytes)}` : formatBytes(size);
    turn.refused.push({ image, name: image && attachment.name === undefined ? undefined : name, size });
    return `[${what} was not read: it is too large (${stated}; the limit is ${formatBytes(maxInboundFileBytes)})]`;
  };
  // Nothing is downloaded when the platform says the file is too large.
  if (attachment.size !== undefined && attachment.size > maxInboundFileBytes) return tooLarge(attachment.size);
  // A turn run again reads only its images: its input has the rest.
  if (turn.source.replay && !image) return undefined;
  let bytes: Uint8Array | undefined;
  try {
    bytes = await keptBytes(turn.source, { entry, index, ref, name, mediaType }, maxInboundFileBytes);
  } catch (error) {
    if (error instanceof FileTooLargeError) return tooLarge(error.size);
    if (error instanceof NotFetchableError) return `[${what} came with this message but was not read: ${error.message}]`;
    // The error of a download names neither its URL nor the token (see `kept-files.ts`).
    turn.log(`${entry.sessionKey}: ${what} not read: ${errorMessage(error)}`);
    return `[${what} came with this message but could not be read]`;
  }
  if (bytes === undefined) return undefined;
  const size = `${mediaType}, ${formatBytes(bytes.length)}`;
  if (image) {
    const data = Buffer.from(bytes).toString('base64');
    if (data.length > turn.room) {
      const why = data.length > turnRoomBytes ? 'too large to show to the model here' : "not shown to the model: this turn's other files left no room for it";
      return `[an image came with this message (kept as ${name}, ${size}), ${why}]`;
    }
    turn.room -= data.length;
    turn.images.push({ type: 'image', data, mediaType });
    return undefined;
  }
  // Read from the bytes of the person's own upload, as on Node: a PDF, a Word document or text.
  const text = await turn.documents(bytes, attachment.mediaType, name);
  if (text === undefined) return `[file kept: ${name} (${size}), but files of this kind cannot be opened on Workers]`;
  const length = new TextEncoder().encode(text).length;
  if (length > turn.room) return `[file kept: ${name} (${size}); its text was not given: this turn's other files left no room for it]`;
  turn.room -= length;
  return `[file kept: ${name} (${size})]\n${text}`;
}

/** Where a message's references are noted in its object's store. */
function refsKey(dedupeKey: string): string {
  return `files:${keySegment(dedupeKey)}`;
}

/** How long a person who was told their file was too large is not told again (the Node gateway's rule for every refusal reason). */
const tooLargeToldForMs = 60 * 60_000;

/**
 * Whether the sender of `entry` should hear that a file was too large: not when they heard so
 * within the hour in this conversation (kept in its object, so an evicted object remembers).
 */
async function tellTooLarge(store: Store, entry: InboxEntry): Promise<boolean> {
  const key = `told:file-too-large:${keySegment(`${entry.address.platform}:${entry.sender.id}`)}`;
  const at = Date.now();
  const last = await store.get<number>(key);
  if (typeof last === 'number' && at - last < tooLargeToldForMs) return false;
  await store.set(key, at, { ttlSeconds: tooLargeToldForMs / 1000 });
  return true;
}

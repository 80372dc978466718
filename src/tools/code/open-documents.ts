/**
 * The documents a language server has open, and what to tell it so that it sees them as they
 * are on disk: a `didOpen` the first time, a `didChange` with the whole text and the next
 * version when the file changed since, a `didClose` when it is gone or the least recently used
 * of too many. Open documents are what the server reads from us instead of the disk, so a stale
 * one would make every answer about it wrong. Files are looked at through a
 * {@link DocumentReader}: the code tool's reads the turn's file worker, inside its sandbox.
 */
import { pathToFileURL } from 'node:url';

/** How documents are looked at on disk. */
export interface DocumentReader {
  /** Something that changes whenever the file does (size and times), or undefined when it is gone. */
  stamp(file: string): Promise<string | undefined>;
  /** Its text, or undefined when it cannot be read. */
  read(file: string): Promise<string | undefined>;
}

/** One message to send the server about a document. */
export type DocumentSync =
  | { kind: 'open'; uri: string; languageId: string; version: number; text: string }
  | { kind: 'change'; uri: string; version: number; text: string }
  | { kind: 'close'; uri: string };

interface OpenDocument {
  uri: string;
  version: number;
  text: string;
  /** The reader's stamp when read: unchanged means the text is still what is on disk. */
  stamp: string;
}

/** Tracks a server's open documents (by absolute real path). */
export class OpenDocuments {
  readonly #max: number;
  /** In order of use, least recent first. */
  readonly #documents = new Map<string, OpenDocument>();

  /** `max`: most documents kept open; the least recently used is closed beyond it. */
  constructor(max = 20) {
    this.#max = max;
  }

  /** How many documents are open. */
  get size(): number {
    return this.#documents.size;
  }

  /** The URI the server knows `file` by. */
  static uriOf(file: string): string {
    return pathToFileURL(file).href;
  }

  /**
   * What to send so the server sees `file` with `text` (just read from disk) and every other
   * open document as it is on disk now, as `reader` finds them. Marks them sent: send all of it,
   * in order. With `renew`, `file` gets a new version even when its text is what was sent.
   */
  async sync(file: string, languageId: string, text: string, reader: DocumentReader, renew = false): Promise<DocumentSync[]> {
    const messages: DocumentSync[] = [];
    for (const [other, document] of this.#documents) {
      if (other === file) continue;
      const now = await reader.stamp(other);
      if (now === document.stamp) continue;
      const fresh = now === undefined ? undefined : await reader.read(other);
      if (fresh === undefined) {
        this.#documents.delete(other);
        messages.push({ kind: 'close', uri: document.uri });
        continue;
      }
      document.stamp = now!;
      if (fresh === document.text) continue;
      document.text = fresh;
      document.version++;
      messages.push({ kind: 'change', uri: document.uri, version: document.version, text: fresh });
    }
    const stamp = (await reader.stamp(file)) ?? '';
    const open = this.#documents.get(file);
    if (open) {
      this.#documents.delete(file);
      this.#documents.set(file, open);
      open.stamp = stamp;
      if (open.text !== text || renew) {
        open.text = text;
        open.version++;
        messages.push({ kind: 'change', uri: open.uri, version: open.version, text });
      }
      return messages;
    }
    for (const [other, document] of this.#documents) {
      if (this.#documents.size < this.#max) break;
      this.#documents.delete(other);
      messages.push({ kind: 'close', uri: document.uri });
    }
    const uri = OpenDocuments.uriOf(file);
    this.#documents.set(file, { uri, version: 1, text, stamp });
    messages.push({ kind: 'open', uri, languageId, version: 1, text });
    return messages;
  }

  /** The text last sent for `file`, if it is open. */
  textOf(file: string): string | undefined {
    return this.#documents.get(file)?.text;
  }
}

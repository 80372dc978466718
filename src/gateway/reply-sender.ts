/**
 * Sends recorded replies: the text's parts, then each file, retrying what may succeed later and
 * noting in the ledger what arrived, so a retry or a restart sends only what is left.
 */
import type { ChannelAdapter, OutboundFile, SentMessage } from '../channels/types.ts';
import { DeliveryError } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';
import type { Outbox } from './files/outbox.ts';
import type { DeliveryLedger, DeliveryProgress, LedgerEntry } from './ledger/index.ts';
import type { Store } from '../store/store.ts';
import { keySegment } from './dedupe.ts';
import type { OpsEvents } from './ops/ops-events.ts';

/** A recorded reply, as {@link ReplySender.send} delivers it. */
export type SendableReply = Pick<LedgerEntry, 'id' | 'turnId' | 'sessionKey' | 'address' | 'text' | 'files' | 'replyTo' | 'sent'>;

/** How hard to try, and what the log says when it gives up. */
export interface SendOptions {
  attempts: number;
  failure: string;
}

/** Delivers recorded replies through their adapters. */
export class ReplySender {
  readonly #ledger: DeliveryLedger;
  readonly #outbox: Outbox | undefined;
  readonly #log: (line: string) => void;
  readonly #ops: OpsEvents | undefined;

  constructor(options: { ledger: DeliveryLedger; /** Where reply files wait; absent where replies carry none (Workers). */ outbox?: Outbox; log: (line: string) => void; ops?: OpsEvents }) {
    this.#ledger = options.ledger;
    this.#outbox = options.outbox;
    this.#log = options.log;
    this.#ops = options.ops;
  }

  /**
   * Delivers a recorded reply and marks it in the ledger, retrying retryable failures. The
   * streamed preview becomes the reply's first part; a retry sends only the parts not delivered.
   * The text goes first, then each file on its own, with what arrived noted in the ledger after
   * each (uploads take long): a restart after a crash sends only what is left. Resolves to the
   * error once given up, else undefined.
   */
  async send(adapter: ChannelAdapter, entry: SendableReply, previewId: string | undefined, options: SendOptions): Promise<string | undefined> {
    const { id, address, text, files = [], replyTo } = entry;
    const attempts = { count: 0 };
    let textIds = entry.sent?.text;
    const fileIds = [...(entry.sent?.files ?? [])];
    // Progress notes go one after another, and all are written before the reply is marked delivered.
    let noting = Promise.resolve();
    const note = (sent: DeliveryProgress) => {
      noting = noting.then(() => this.#noteProgress(entry, sent));
    };
    const givenUp = async (error: string) => {
      await noting;
      await this.discardFiles(entry);
      return error;
    };
    if (textIds === undefined) {
      const sent =
        text.trim() === '' && files.length > 0
          ? { ids: [] }
          : await this.#sendParts(entry, options, attempts, entry.sent?.textParts ?? [], (textParts) => note({ textParts, files: fileIds }), (skipParts, onPart) =>
              adapter.send(address, { text, replyTo, replace: previewId, skipParts, onPart, idempotencyKey: id }),
            );
      if ('error' in sent) return givenUp(sent.error);
      textIds = sent.ids;
      if (files.length > 0) note({ text: textIds, files: fileIds });
    }
    for (const [index, file] of files.entries()) {
      if (index < fileIds.length) continue;
      const sent = await this.#sendParts(entry, options, attempts, [], undefined, (skipParts) => adapter.send(address, { text: '', files: [file], skipParts, idempotencyKey: `${id}:file:${index}` }));
      if ('error' in sent) return givenUp(sent.error);
      fileIds.push(...sent.ids);
      if (fileIds.length < files.length) note({ text: textIds, files: [...fileIds] });
    }
    await noting;
    // Sent: a failure to note it must not send it again (after a restart it may, once).
    await this.#ledger.markDelivered(id, [...textIds, ...fileIds]).catch((error: unknown) => this.#log(`${entry.sessionKey}: delivery not noted: ${errorMessage(error)}`));
    await this.discardFiles(entry);
    this.#ops?.emit({ type: 'reply.delivered', platform: address.platform, conversation: entry.sessionKey, turn: entry.turnId, attempts: attempts.count });
    return undefined;
  }

  /**
   * Sends replies recorded but never marked delivered (a crash between answer and delivery), once
   * each (a claim keeps two senders from both sending one). A reply that was being streamed
   * replaces its preview message, as it would have.
   */
  async resend(entries: readonly LedgerEntry[], adapters: ReadonlyMap<string, ChannelAdapter>, store: Store): Promise<void> {
    for (const entry of entries) {
      const adapter = adapters.get(entry.address.platform);
      if (!adapter || !(await this.#ledger.claim(entry.id))) continue;
      // Pending entries of a version that kept the preview under its own key still find it.
      const previewId = entry.previewId ?? (await store.get<string>(`ledger-preview:${keySegment(entry.turnId)}`)) ?? undefined;
      await this.send(adapter, entry, previewId, { attempts: 1, failure: 'undelivered reply could not be sent after restart' });
    }
  }

  /** Removes the outbox copies of a reply's files once it is delivered or given up. */
  async discardFiles(entry: { sessionKey: string; files?: OutboundFile[] }): Promise<void> {
    await this.#outbox?.discard(entry.files).catch((error: unknown) => this.#log(`${entry.sessionKey}: sent files not removed from the outbox: ${errorMessage(error)}`));
  }

  /**
   * Sends what `send` sends, trying again after retryable failures (only the parts not yet
   * delivered); resolves to the ids of every part, or to the error once given up (noted in the
   * ledger and the log).
   */
  async #sendParts(
    entry: SendableReply,
    options: SendOptions,
    attempts: { count: number },
    already: readonly string[],
    noteParts: ((delivered: string[]) => void) | undefined,
    send: (skipParts: number, onPart: (ids: readonly string[], parts: number) => void) => Promise<SentMessage>,
  ): Promise<{ ids: string[] } | { error: string }> {
    /** Parts delivered before (a restart) and by failed attempts: an attempt sends only the rest. */
    const delivered: string[] = [...already];
    const place = { platform: entry.address.platform, conversation: entry.sessionKey, turn: entry.turnId };
    for (let attempt = 1; ; attempt++) {
      attempts.count++;
      const before = [...delivered];
      try {
        const sent = await send(delivered.length, (ids, parts) => {
          // Noted while some parts are left: the last one is followed by the delivery itself.
          if (noteParts && before.length + ids.length < parts) noteParts([...before, ...ids]);
        });
        return { ids: [...delivered, ...sent.ids] };
      } catch (error) {
        if (error instanceof DeliveryError) delivered.push(...error.delivered);
        const retryable = typeof error === 'object' && error !== null && (error as { retryable?: boolean }).retryable === true;
        const final = !retryable || attempt >= options.attempts;
        await this.#ledger.markFailed(entry.id, errorMessage(error), { final });
        if (final) {
          if (this.#ops) this.#ops.emit({ type: 'reply.failed', ...place, error: `${options.failure}: ${errorMessage(error)}` });
          else this.#log(`${entry.sessionKey}: ${options.failure}: ${errorMessage(error)}`);
          return { error: errorMessage(error) };
        }
        this.#ops?.emit({ type: 'reply.retried', ...place, attempt, error: errorMessage(error) });
        const wait = (error as { retryAfterMs?: number }).retryAfterMs ?? 1_000 * attempt;
        await new Promise((resolve) => setTimeout(resolve, Math.min(wait, 30_000)));
      }
    }
  }

  /** Notes in the ledger which parts of a reply arrived (a failure to note it is only logged). */
  async #noteProgress(entry: SendableReply, sent: DeliveryProgress): Promise<void> {
    await this.#ledger.markProgress(entry.id, sent).catch((error: unknown) => this.#log(`${entry.sessionKey}: delivery progress not noted: ${errorMessage(error)}`));
  }
}

/**
 * Streams one reply to a chat: the answer appears early and grows by edits, throttled to the
 * platform's edit rate, and ends as the final text. Where the adapter offers drafts for the
 * conversation (Telegram's private chats), it grows in a draft instead: no preview message at
 * all, so the final text is one new message and nothing is edited. Platforms without edits get
 * the final text only. The final delivery goes through the caller (ledger first), so a preview can
 * be lost in a crash but the answer cannot.
 */
import { previewMarker, type ChannelAdapter, type ConversationAddress, type DraftStreaming } from '../channels/types.ts';
import { within } from '../core/within.ts';

/** Text that means "send nothing" (e.g. a scheduled check with nothing to report). */
export const silentReply = '[SILENT]';

/** Characters a preview needs before it is worth showing. */
const minimumPreview = 24;

// What ends a preview's text while its answer is still streaming (the channels' contract names it).
export { previewMarker };

/** A reply being streamed to one conversation. */
export class ReplyStream {
  #adapter: ChannelAdapter;
  #address: ConversationAddress;
  #replyTo: string | undefined;
  #text = '';
  /** What the last preview or draft showed; undefined before the first. */
  #shown: string | undefined;
  /** Drafts, while the adapter offers them here and has not refused them. */
  #drafts: DraftStreaming | undefined;
  /** One per reply: Telegram animates changes to a draft of the same id. */
  #draftId = 1 + Math.floor(Math.random() * 0x7ffffffe);
  #messageId: string | undefined;
  #lastEdit = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #flushing: Promise<void> = Promise.resolve();
  #closed = false;
  /** Show any text, however short (see `showNow`). */
  #eager = false;
  #now: () => number;
  #onPreview: ((messageId: string) => void | Promise<void>) | undefined;
  #idempotencyKey: string | undefined;
  /** A note shown below the text (or alone) until more of the answer arrives (see `notice`). */
  #notice: string | undefined;

  /**
   * `messageId` continues a preview sent before (by a process that stopped mid-answer): the
   * stream edits it instead of sending another. `onPreview` hears the preview's id once it was
   * sent, so the caller can record it; the stream sends nothing more (no edit, and `close` does
   * not resolve) until the promise it returns settles. `idempotencyKey` makes the
   * preview's send idempotent where the platform can: a turn run again after a crash gets back
   * the preview the dead process sent (if it never heard its id) and finishes it.
   */
  constructor(
    adapter: ChannelAdapter,
    address: ConversationAddress,
    options: { replyTo?: string; now?: () => number; messageId?: string; onPreview?: (messageId: string) => void | Promise<void>; idempotencyKey?: string } = {},
  ) {
    this.#adapter = adapter;
    this.#address = address;
    this.#replyTo = options.replyTo;
    this.#now = options.now ?? Date.now;
    this.#messageId = options.messageId;
    this.#onPreview = options.onPreview;
    this.#idempotencyKey = options.idempotencyKey;
    // A preview sent before (by a process that stopped mid-answer) is finished by edits, as begun.
    this.#drafts = options.messageId === undefined && adapter.drafts?.available(address) ? adapter.drafts : undefined;
  }

  /** Whether this reply streams by drafts (so far: a refusal turns it to edits). */
  get drafting(): boolean {
    return this.#drafts !== undefined;
  }

  /** The id of the preview message, once one was sent. */
  get messageId(): string | undefined {
    return this.#messageId;
  }

  /** Adds streamed text. */
  push(delta: string): void {
    if (this.#closed || !this.#adapter.capabilities.edit) return;
    this.#text += delta;
    this.#notice = undefined;
    this.#schedule();
  }

  /**
   * Shows the text so far at once, however short: a tool call starts, and what the model said
   * before it ("Let me check.") should not wait for the tool. A "[SILENT]" reply still never shows.
   */
  showNow(): void {
    if (this.#closed || !this.#adapter.capabilities.edit) return;
    this.#eager = true;
    // Nothing shown yet: no edit rate to keep, so no timer either (the question of an approval
    // the tool may ask comes after this preview, not before it).
    if (this.#shown !== undefined) {
      this.#schedule();
      return;
    }
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#flushing = this.#flushing.then(() => this.#flush()).catch(() => undefined);
  }

  /**
   * Shows `text` at once below what the preview shows (alone when nothing does), until more of the
   * answer arrives: the person hears that the turn goes on (a slow provider). It is the preview
   * message, so it is noted and finished like any preview, and the answer replaces it.
   */
  notice(text: string): void {
    if (this.#closed || !this.#adapter.capabilities.edit) return;
    this.#notice = text;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#flushing = this.#flushing.then(() => this.#flush()).catch(() => undefined);
  }

  /** Starts a new paragraph (e.g. after tool calls, the next model call's text follows). */
  separate(): void {
    if (this.#text && !this.#text.endsWith('\n\n')) this.#text += '\n\n';
  }

  /**
   * Stops previews and waits for any in flight. Returns the preview message's id, if one was
   * sent: the final text replaces it (as its first part, when it is long). `leaving`: the turn is
   * left to a later run (the gateway stops), so a draft is not made a message.
   */
  async close(options: { leaving?: boolean } = {}): Promise<string | undefined> {
    this.#closed = true;
    clearTimeout(this.#timer);
    await this.#flushing;
    // A reply that grew in a draft ends as a preview message, noted before the final text replaces
    // it by an edit, which a restart repeats safely. Sent as a new message instead, a process killed
    // between Telegram taking it and the ledger hearing so would send it again after the restart
    // (the chaos test under CPU load found one answered twice).
    if (!options.leaving && this.#drafts && this.#messageId === undefined && this.#shown !== undefined) await this.#previewMessage();
    return this.#messageId;
  }

  /** Sends what the answer is now as the preview message, the final text's first part to be. */
  async #previewMessage(): Promise<void> {
    const preview = this.#preview();
    if (preview === undefined || preview === '') return;
    await this.#sendPreview(preview).catch(() => undefined);
  }

  /** Sends `preview` as the stream's preview message and notes it (see `#flush`). */
  async #sendPreview(preview: string): Promise<void> {
    const sent = await this.#adapter.send(this.#address, { text: preview, replyTo: this.#replyTo, idempotencyKey: this.#idempotencyKey, preview: true, ...this.#noticePart() });
    this.#messageId = sent.ids[0];
    // On record before anything else of this stream goes out (the next edit, the final text):
    // a process killed after this point leaves a preview its restart finishes. The caller
    // reports a note that failed; the stream goes on. A store that takes longer than
    // `previewNoteWaitMs` does not hold the answer back: the person's preview is finished
    // while the note is still being written (a kill in that stretch may leave it, as before).
    if (this.#messageId !== undefined) await within(Promise.resolve(this.#onPreview?.(this.#messageId)), previewNoteWaitMs);
  }

  #schedule(): void {
    if (this.#timer) return;
    const interval = this.#drafts?.intervalMs ?? this.#adapter.capabilities.editIntervalMs;
    const wait = this.#shown === undefined ? 0 : Math.max(0, this.#lastEdit + interval - this.#now());
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#flushing = this.#flushing.then(() => this.#flush()).catch(() => undefined);
    }, wait);
  }

  async #flush(): Promise<void> {
    if (this.#closed) return;
    const preview = this.#preview();
    if (preview === undefined || preview === this.#shown) return;
    this.#lastEdit = this.#now();
    if (this.#drafts) {
      if (await this.#drafts.show(this.#address, this.#draftId, preview)) {
        this.#shown = preview;
        return;
      }
      // Refused (the adapter remembers it for the bot): this reply goes on by edits, from here.
      this.#drafts = undefined;
      if (preview === '') return;
    }
    if (this.#messageId === undefined) {
      await this.#sendPreview(preview);
    } else {
      await this.#adapter.edit(this.#address, this.#messageId, { text: preview, preview: true, ...this.#noticePart() });
    }
    this.#shown = preview;
  }

  /** The notice the preview shows, named apart for adapters that stream the answer itself. */
  #noticePart(): { notice?: string } {
    return this.#notice === undefined ? {} : { notice: this.#notice };
  }

  /**
   * The text to show now, or undefined when nothing is worth showing yet. A draft shows an empty
   * text (the "Thinking…" placeholder) once a tool starts before the answer says anything.
   */
  #preview(): string | undefined {
    let text = this.#text.trimEnd();
    // A reply that may turn out to be "[SILENT]" must not be previewed.
    const unsure = (text.length < minimumPreview && !this.#eager) || silentReply.startsWith(text.trim());
    if (this.#notice !== undefined) text = unsure ? this.#notice : `${text}\n\n${this.#notice}`;
    else if (unsure) return this.#drafts && this.#eager ? '' : undefined;
    // Previews stay inside one message; the final text is split by the adapter when longer.
    return `${text.length > this.#adapter.capabilities.maxLength - 16 ? text.slice(0, this.#adapter.capabilities.maxLength - 16) : text} ${previewMarker}`;
  }
}

/** The longest a stream waits for its preview's note before it goes on (see `#flush`). */
export const previewNoteWaitMs = 1_000;

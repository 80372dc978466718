/**
 * One message that shows a status and is edited in place as it changes (at most once per the
 * platform's edit interval), and a last time at the end: the subagents' progress, a pipeline
 * run's. It is a status, not a reply: not in the delivery ledger, and a failure to send or edit it
 * is logged and changes nothing else. Where the platform cannot edit, it is sent once.
 */
import type { ChannelAdapter, ConversationAddress } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';

/** A status message in one conversation. */
export class StatusMessage {
  readonly #adapter: ChannelAdapter;
  readonly #address: ConversationAddress;
  readonly #replyTo: string | undefined;
  readonly #log: (line: string) => void;
  readonly #what: string;
  #text = '';
  #shown = '';
  #messageId: string | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> = Promise.resolve();

  /** `what` names it in log lines ("subagent progress"). */
  constructor(adapter: ChannelAdapter, address: ConversationAddress, options: { replyTo?: string; log: (line: string) => void; what: string }) {
    this.#adapter = adapter;
    this.#address = address;
    this.#replyTo = options.replyTo;
    this.#log = options.log;
    this.#what = options.what;
  }

  /** Whether it has been given any text. */
  get started(): boolean {
    return this.#text !== '';
  }

  /** The text now: shown at once the first time, then at the platform's pace. */
  update(text: string): void {
    this.#text = text;
    if (text === '' || this.#timer) return;
    const wait = this.#shown === '' ? 0 : this.#adapter.capabilities.editIntervalMs;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#write();
    }, wait);
    this.#timer.unref();
  }

  /** Shows `text` (or the last text) now and stops. */
  async close(text?: string): Promise<void> {
    if (text !== undefined) this.#text = text;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#text !== '') this.#write();
    await this.#writing;
  }

  #write(): void {
    this.#writing = this.#writing.then(async () => {
      const text = this.#text;
      if (text === this.#shown) return;
      try {
        if (this.#messageId === undefined) {
          if (this.#shown !== '') return; // sent once where the platform cannot edit
          this.#shown = text;
          const sent = await this.#adapter.send(this.#address, { text, replyTo: this.#replyTo });
          if (this.#adapter.capabilities.edit && sent.ids.length === 1) this.#messageId = sent.ids[0];
        } else {
          this.#shown = text;
          await this.#adapter.edit(this.#address, this.#messageId, { text });
        }
      } catch (error) {
        this.#log(`${this.#address.platform}: ${this.#what} not shown: ${errorMessage(error)}`);
      }
    });
  }
}

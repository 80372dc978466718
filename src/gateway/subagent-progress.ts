/**
 * The subagents' progress in the chat: one message, one line per child of the turn, edited in
 * place as they move on (at most once per the platform's edit interval), and a last time when the
 * turn ends. It is a status, not a reply: it is not in the delivery ledger, and a failure to send
 * or edit it is logged and changes nothing else.
 */
import type { SubagentLine } from '../agent/subagents/index.ts';
import type { ChannelAdapter, ConversationAddress } from '../channels/types.ts';
import { errorMessage } from '../core/errors.ts';

const marks: Record<SubagentLine['status'], string> = {
  running: '⏳',
  done: '✅',
  failed: '❌',
  stopped: '⏹',
  'over-budget': '⛔',
  interrupted: '⏸',
};

/** The progress message's text. */
export function progressText(lines: readonly SubagentLine[]): string {
  const rows = lines.map((line) => {
    const calls = `${line.toolCalls} tool call${line.toolCalls === 1 ? '' : 's'}`;
    const state = line.status === 'running' ? (line.tool ? `${calls}, now ${line.tool}` : calls) : `${line.status === 'over-budget' ? 'over its budget' : line.status}, ${calls}`;
    return `${marks[line.status]} ${line.id} · ${shorten(line.task, 60)} — ${state}`;
  });
  return [`Subagents (${lines.filter((line) => line.status === 'running').length} working):`, ...rows].join('\n');
}

/** One turn's progress message. */
export class SubagentProgress {
  readonly #adapter: ChannelAdapter;
  readonly #address: ConversationAddress;
  readonly #replyTo: string | undefined;
  readonly #log: (line: string) => void;
  #lines: readonly SubagentLine[] = [];
  #shown = '';
  #messageId: string | undefined;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(adapter: ChannelAdapter, address: ConversationAddress, options: { replyTo?: string; log: (line: string) => void }) {
    this.#adapter = adapter;
    this.#address = address;
    this.#replyTo = options.replyTo;
    this.#log = options.log;
  }

  /** The children's lines now; shown at once the first time, then at the platform's pace. */
  update(lines: readonly SubagentLine[]): void {
    this.#lines = lines;
    if (lines.length === 0 || this.#timer) return;
    const wait = this.#shown === '' ? 0 : this.#adapter.capabilities.editIntervalMs;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#write();
    }, wait);
    this.#timer.unref();
  }

  /** Shows the last lines (when a child worked in this turn at all) and stops. */
  async close(lines?: readonly SubagentLine[]): Promise<void> {
    if (lines && this.#lines.length > 0) this.#lines = lines;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#lines.length > 0) this.#write();
    await this.#writing;
  }

  #write(): void {
    this.#writing = this.#writing.then(async () => {
      const text = progressText(this.#lines);
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
        this.#log(`${this.#address.platform}: subagent progress not shown: ${errorMessage(error)}`);
      }
    });
  }
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

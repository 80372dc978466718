/**
 * The agent's answer as it streams, rendered one Markdown block at a time. A block is complete
 * once the lexer sees the next block start after it (or when the message ends): nothing appended
 * later can change it then.
 *
 * On a screen (an interactive terminal) the text shows raw the moment it arrives, and once its
 * block is complete that raw text is erased (cursor up over the rows it covers) and redrawn
 * rendered. Elsewhere (a pipe, a file) each block is written once, rendered, when complete.
 *
 * Erasing counts rows from the text itself, so it stays raw where that count cannot be trusted:
 * a block taller than the screen (its top has scrolled away) stays raw, and once the person types
 * while the answer streams (the terminal's echo moved the cursor) the rest of that message does.
 */
import { lexer } from 'marked';
import type { TerminalScreen } from './terminal-display.ts';
import { safeTerminalText, screenRows } from './terminal-text.ts';

/** Options of {@link TerminalMarkdownStream}. */
export interface TerminalMarkdownStreamOptions {
  write(text: string): void;
  /** Complete Markdown blocks to terminal text ending with a newline. */
  render(markdown: string): string;
  /** Set on an interactive terminal: raw text shows live and is redrawn rendered. */
  screen?: TerminalScreen;
}

/** One chat's answer text, as it streams. */
export class TerminalMarkdownStream {
  readonly #options: TerminalMarkdownStreamOptions;
  /** Text of the message not written rendered yet: the block still growing, at most. */
  #pending = '';
  /** How much of `#pending` is on the screen raw. */
  #shown = 0;
  /** What this message's text ended with just before the raw text on the screen. */
  #tailBeforeShown = '';
  /** The last two characters this message wrote, to keep one blank line between blocks. */
  #tail = '';
  /** The rest of this message stays raw (see the file comment). */
  #raw = false;

  constructor(options: TerminalMarkdownStreamOptions) {
    this.#options = options;
  }

  /** Takes the next piece of the answer's text. */
  push(text: string): void {
    const delta = safeTerminalText(text.replace(/\r\n?/g, '\n'));
    if (delta === '') return;
    if (this.#raw) return this.#write(delta);
    const before = this.#pending;
    this.#pending += delta;
    // A block starts at a line start, so only then can the one before it complete: lexing the
    // growing block at every delta in between would cost time quadratic in its length.
    const lineSoFar = before.slice(before.lastIndexOf('\n') + 1);
    const complete = delta.includes('\n') || lineSoFar.trim() === '' ? completedLength(this.#pending) : 0;
    if (complete > 0) this.#commit(complete);
    this.#showPending();
  }

  /** Writes what is left of the message (rendered, unless it stays raw); ends at a line start. */
  finish(): void {
    if (!this.#raw && this.#pending !== '') this.#commit(this.#pending.length);
    if (this.#tail !== '' && !this.#tail.endsWith('\n')) this.#write('\n');
    this.#pending = '';
    this.#shown = 0;
    this.#tail = '';
    this.#raw = false;
  }

  /** Tells that the screen moved under the streamed text (the person typed a line). */
  interrupt(): void {
    if (!this.#options.screen || this.#shown === 0) return;
    this.#raw = true;
    this.#pending = '';
    this.#shown = 0;
    // The echo ended with the person's Enter: the cursor is at a line start.
    this.#tail = '\n';
  }

  /** Writes the first `length` characters of `#pending` rendered, in place of their raw text. */
  #commit(length: number): void {
    const onScreen = this.#pending.slice(0, this.#shown);
    const block = this.#pending.slice(0, length);
    this.#pending = this.#pending.slice(length);
    this.#shown = 0;
    if (onScreen !== '' && !this.#erase(onScreen)) return this.#keepRaw(block, onScreen.length);
    this.#separate();
    this.#write(this.#options.render(block));
  }

  /**
   * Leaves `block` raw (`shown` characters of it and of what follows are on the screen already):
   * writes the rest of it raw and goes on after it, from a fresh line when it ended with one,
   * and raw to the message's end otherwise.
   */
  #keepRaw(block: string, shown: number): void {
    if (shown < block.length) this.#write(block.slice(shown));
    if (!block.endsWith('\n')) {
      this.#raw = true;
      this.#write(this.#pending.slice(Math.max(0, shown - block.length)));
      this.#pending = '';
      return;
    }
    this.#shown = Math.max(0, shown - block.length);
    this.#tailBeforeShown = block.slice(-2);
  }

  /** Erases `text`, written raw from a line start; false when it cannot be done safely. */
  #erase(text: string): boolean {
    const screen = this.#options.screen!;
    const rows = screenRows(text, screen.columns());
    if (rows > screen.rows()) return false;
    this.#options.write(`\r${rows > 1 ? `\x1b[${rows - 1}A` : ''}\x1b[J`);
    this.#tail = this.#tailBeforeShown;
    return true;
  }

  /** On a screen, writes the part of `#pending` not shown yet, raw. */
  #showPending(): void {
    if (!this.#options.screen || this.#raw || this.#pending.length === this.#shown) return;
    if (this.#shown === 0) {
      this.#separate();
      this.#tailBeforeShown = this.#tail;
    }
    this.#write(this.#pending.slice(this.#shown));
    this.#shown = this.#pending.length;
  }

  /** One blank line between blocks: none before the message's first. */
  #separate(): void {
    if (this.#tail === '' || this.#tail.endsWith('\n\n')) return;
    this.#write(this.#tail.endsWith('\n') ? '\n' : '\n\n');
  }

  #write(text: string): void {
    if (text === '') return;
    this.#options.write(text);
    this.#tail = (this.#tail + text).slice(-2);
  }
}

/**
 * How much of `markdown` is complete blocks: everything before the last block that is not blank
 * space. 0 when the lexer's pieces do not add up to the text (then it waits for the end).
 */
function completedLength(markdown: string): number {
  const tokens = lexer(markdown);
  let last = -1;
  tokens.forEach((token, index) => {
    if (token.type !== 'space') last = index;
  });
  if (last <= 0) return 0;
  const complete = tokens.slice(0, last).map((token) => token.raw).join('');
  return markdown.startsWith(complete) ? complete.length : 0;
}

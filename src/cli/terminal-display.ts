/**
 * What the terminal chat's output can do, decided once from the stream and the environment:
 * colour only on an interactive terminal without NO_COLOR (https://no-color.org), and replacing
 * streamed text in place only on an interactive terminal that can move its cursor.
 */
import type { Writable } from 'node:stream';

/** The rows and columns of the terminal, read when needed (the window may be resized). */
export interface TerminalScreen {
  columns(): number;
  rows(): number;
}

/** What the output can do. */
export interface TerminalDisplay {
  /** ANSI colours and text styles. */
  color: boolean;
  /**
   * Set when the output is an interactive terminal whose cursor can move: the answer's text then
   * shows raw as it streams and each Markdown block is redrawn rendered once it is complete.
   */
  screen?: TerminalScreen;
}

/** A stream that may be a terminal (`process.stdout` is a `tty.WriteStream` when it is one). */
export type MaybeTerminal = Writable & { isTTY?: boolean; columns?: number; rows?: number };

/**
 * The display of `output` under `env`: a TTY gets the screen, and colour unless NO_COLOR is set
 * (to anything but the empty string); TERM=dumb gets neither; pipes and files get plain text.
 */
export function terminalDisplay(output: MaybeTerminal, env: Readonly<Record<string, string | undefined>>): TerminalDisplay {
  if (output.isTTY !== true || env.TERM === 'dumb') return { color: false };
  return {
    color: !env.NO_COLOR,
    screen: { columns: () => output.columns || 80, rows: () => output.rows || 24 },
  };
}

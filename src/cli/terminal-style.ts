/**
 * How the terminal chat styles what it prints: ANSI SGR sequences when colour is on, nothing at
 * all when it is off, so output to a pipe, a file or a NO_COLOR terminal never carries one.
 */

/** One style: text in, text out (unchanged when colour is off). */
export type Styler = (text: string) => string;

/** The styles of rendered Markdown, by role rather than by colour. */
export interface TerminalStyle {
  /** Whether the styles add anything; the renderer keeps some Markdown marks when they do not. */
  readonly color: boolean;
  strong: Styler;
  emphasis: Styler;
  strike: Styler;
  /** Inline code and code blocks. */
  code: Styler;
  heading: (text: string, depth: number) => string;
  link: Styler;
  /** Secondary marks: a link's address, quote bars, table rules. */
  faint: Styler;
}

/**
 * A styler that opens with `open` and closes with `close`. A nested style that closes with the
 * same code (bold inside a bold heading) would end the outer one early, so the outer one is
 * reopened after every inner close.
 */
function sgr(open: number, close: number): Styler {
  const start = `\x1b[${open}m`;
  const end = `\x1b[${close}m`;
  return (text) => (text === '' ? text : `${start}${text.split(end).join(end + start)}${end}`);
}

const bold = sgr(1, 22);
const italic = sgr(3, 23);
const underline = sgr(4, 24);
const dim = sgr(2, 22);
const strikethrough = sgr(9, 29);
const yellow = sgr(33, 39);
const blue = sgr(34, 39);
const cyan = sgr(36, 39);
const unchanged: Styler = (text) => text;

const colored: TerminalStyle = {
  color: true,
  strong: bold,
  emphasis: italic,
  strike: strikethrough,
  code: yellow,
  heading: (text, depth) => (depth === 1 ? underline(bold(cyan(text))) : bold(cyan(text))),
  link: (text) => underline(blue(text)),
  faint: dim,
};

const plain: TerminalStyle = {
  color: false,
  strong: unchanged,
  emphasis: unchanged,
  strike: unchanged,
  code: unchanged,
  heading: unchanged,
  link: unchanged,
  faint: unchanged,
};

/** The styles for a terminal with colour (`color`) or without. */
export function terminalStyle(color: boolean): TerminalStyle {
  return color ? colored : plain;
}

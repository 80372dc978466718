/**
 * Text as a terminal shows it: how many columns a line takes, how many rows a stretch of text
 * fills, and the model's text made safe to print (no control characters that could move the
 * cursor, retitle the window or hide what follows).
 */

/** SGR sequences (colour, bold, ...), which take no room on the screen. */
// eslint-disable-next-line no-control-regex -- matching the escape character is the point
const styleSequence = /\x1b\[[0-9;]*m/g;

/**
 * C0 controls other than tab and newline, DEL and C1 controls: printed raw they would let the
 * model's text drive the terminal (ESC starts every escape sequence, 0x9B is the 8-bit CSI).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const controlCharacters = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/** Combining marks, drawn onto the character before them. */
const combiningMark = /^[\p{Mn}\p{Me}]$/u;

/** Zero-width space and joiners, direction marks, word joiner, variation selectors. */
function isZeroWidth(character: string): boolean {
  const code = character.codePointAt(0)!;
  return combiningMark.test(character) || (code >= 0x200b && code <= 0x200f) || code === 0x2060 || (code >= 0xfe00 && code <= 0xfe0f);
}

/** Characters most terminals draw two columns wide: CJK, Hangul, full-width forms and emoji. */
const doubleWidth = /^[\u1100-\u115F\u2E80-\u303E\u3041-\u33FF\u3400-\u4DBF\u4E00-\u9FFF\uA000-\uA4CF\uAC00-\uD7A3\uF900-\uFAFF\uFE30-\uFE4F\uFF00-\uFF60\uFFE0-\uFFE6\u{1F300}-\u{1F64F}\u{1F900}-\u{1F9FF}\u{20000}-\u{3FFFD}\p{Emoji_Presentation}]$/u;

/** `text` without control characters (tab and newline stay). */
export function safeTerminalText(text: string): string {
  return text.replace(controlCharacters, '');
}

/**
 * The columns one line takes, from the left edge: styles take none, tabs reach the next multiple
 * of 8, wide characters take 2. Approximate for exotic sequences; callers that erase by it err
 * on the side of erasing too little.
 */
export function displayWidth(line: string): number {
  let width = 0;
  let joined = false;
  for (const character of line.replace(styleSequence, '')) {
    if (character === '\t') width += 8 - (width % 8);
    else if (joined || isZeroWidth(character)) width += 0;
    else width += doubleWidth.test(character) ? 2 : 1;
    // The character after a zero-width joiner is drawn into the one before it (👩‍💻).
    joined = character === '\u200D';
  }
  return width;
}

/**
 * The screen rows `text` (written from the left edge) covers on a terminal `columns` wide, the
 * row the cursor ends on included: `"a\n"` covers 2.
 */
export function screenRows(text: string, columns: number): number {
  const width = Math.max(1, columns);
  return text.split('\n').reduce((rows, line) => rows + Math.max(1, Math.ceil(displayWidth(line) / width)), 0);
}

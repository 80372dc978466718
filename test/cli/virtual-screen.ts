/**
 * What a terminal would show after a program's output was written to it: enough of a terminal to
 * check the chat's in-place redraw (carriage return, newline, wrapping at the right edge, cursor
 * up, erase to the end of the screen). Styles and other escape sequences take no room.
 */

/** The screen's lines (scrollback included) after `output`, styles dropped, trailing spaces trimmed. */
export function screenAfter(output: string, columns = 80): string[] {
  const lines: string[][] = [[]];
  let row = 0;
  let column = 0;
  const line = () => (lines[row] ??= []);
  for (let index = 0; index < output.length; index++) {
    const character = output[index]!;
    if (character === '\x1b') {
      // eslint-disable-next-line no-control-regex -- escape sequences are what is matched
      const sequence = /^\x1b\[([0-9;?]*)([A-Za-z])/.exec(output.slice(index));
      if (!sequence) continue;
      index += sequence[0].length - 1;
      const count = Number(sequence[1] || 1);
      if (sequence[2] === 'A') row = Math.max(0, row - count);
      if (sequence[2] === 'J') {
        line().length = Math.min(line().length, column);
        lines.length = row + 1;
      }
      continue;
    }
    if (character === '\r') {
      column = 0;
      continue;
    }
    if (character === '\n') {
      // A pty turns every newline into CR LF; text written straight here has bare newlines.
      row++;
      column = 0;
      line();
      continue;
    }
    if (column >= columns) {
      row++;
      column = 0;
    }
    line()[column++] = character;
  }
  return lines.map((cells) => Array.from(cells, (cell) => cell ?? ' ').join('').trimEnd());
}

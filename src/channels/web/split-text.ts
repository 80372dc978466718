/**
 * Splits a text longer than a platform's limit into pieces, preferring a paragraph break, then a
 * line break, then a space near the end of each piece.
 */
export function splitText(text: string, maxLength: number): string[] {
  if (text.length <= maxLength) return [text];
  const pieces: string[] = [];
  let rest = text;
  while (rest.length > maxLength) {
    const window = rest.slice(0, maxLength);
    const floor = Math.floor(maxLength / 2);
    let cut = window.lastIndexOf('\n\n');
    if (cut < floor) cut = window.lastIndexOf('\n');
    if (cut < floor) cut = window.lastIndexOf(' ');
    if (cut < floor) cut = maxLength;
    pieces.push(rest.slice(0, cut));
    rest = rest.slice(cut).replace(/^\s+/, '');
  }
  if (rest.length > 0) pieces.push(rest);
  return pieces;
}

/**
 * Character references in Markdown text (`&amp;`, `&#39;`, `&#x2014;`): marked leaves them in
 * text tokens, and each platform's renderer decodes them before escaping for its own markup.
 */

const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes the character references Markdown text may carry; unknown or invalid ones stay as written. */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name[0] === '#') {
      const codePoint = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return codePoint > 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : whole;
    }
    return named[name] ?? whole;
  });
}

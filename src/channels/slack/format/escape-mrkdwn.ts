/** Escaping for Slack's mrkdwn, which reads `&`, `<` and `>` as markup everywhere, code included. */

/** Escapes `&`, `<` and `>` as Slack requires. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

/** Decodes the character references Markdown text may carry (`&amp;`, `&#39;`, `&#x2014;`). */
export function decodeEntities(text: string): string {
  return text.replace(/&(#[xX][0-9a-fA-F]{1,6}|#[0-9]{1,7}|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name[0] === '#') {
      const codePoint = name[1] === 'x' || name[1] === 'X' ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return codePoint > 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : whole;
    }
    return named[name] ?? whole;
  });
}

/** A link target safe inside `<url|label>`: no `|` or `>` that would end it early. */
export function linkTarget(url: string): string {
  return url.replace(/\|/g, '%7C').replace(/>/g, '%3E').replace(/</g, '%3C').replace(/&/g, '&amp;');
}

/** Escaping for Slack's mrkdwn, which reads `&`, `<` and `>` as markup everywhere, code included. */

/** Escapes `&`, `<` and `>` as Slack requires. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A link target safe inside `<url|label>`: no `|` or `>` that would end it early. */
export function linkTarget(url: string): string {
  return url.replace(/\|/g, '%7C').replace(/>/g, '%3E').replace(/</g, '%3C').replace(/&/g, '&amp;');
}

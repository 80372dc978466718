/** HTML escaping for Telegram's HTML parse mode, which knows only a few named entities. */

/** Escapes `&`, `<` and `>` (all Telegram requires outside attributes). */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** Escapes text for a double-quoted attribute value. */
export function escapeAttribute(text: string): string {
  return escapeHtml(text).replace(/"/g, '&quot;');
}


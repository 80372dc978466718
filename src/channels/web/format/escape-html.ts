/** HTML escaping for the web chat's renderer: every character that could open markup or end an attribute. */

/** Escapes `&`, `<`, `>`, `"` and `'`, so the text is text in element content and in quoted attributes alike. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

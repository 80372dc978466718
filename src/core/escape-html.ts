/** HTML escaping for the pages operator serves (the web chat's answers, the login pages, the admin console). */

/** Escapes `&`, `<`, `>`, `"` and `'`, so the text is text in element content and in quoted attributes alike. */
export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

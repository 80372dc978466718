/**
 * The aria snapshot of a tab in Playwright's AI mode: the page as roles and names, each element
 * the agent can act on tagged `[ref=eN]`. Refs resolve against the latest snapshot of the page, so
 * the last one taken is kept per page: it is what the model saw, and what a ref means.
 */
import type { Page } from 'playwright-core';

/** The latest snapshot text of each page. */
const latest = new WeakMap<Page, string>();

/** Takes the page's snapshot (and keeps it as the one refs resolve against). */
export async function takeSnapshot(page: Page, timeoutMs = 5_000): Promise<string> {
  const text = await page.ariaSnapshot({ mode: 'ai', timeout: timeoutMs });
  latest.set(page, text);
  return text;
}

/** The last snapshot taken of `page`, if any. */
export function lastSnapshot(page: Page): string | undefined {
  return latest.get(page);
}

/**
 * What `ref` names in the last snapshot of `page` (`button "Pay now"`), or undefined when it is
 * not there (no snapshot yet, or a ref of an older one).
 */
export function describeRef(page: Page, ref: string): string | undefined {
  const snapshot = latest.get(page);
  if (!snapshot) return undefined;
  const marker = `[ref=${ref}]`;
  for (const line of snapshot.split('\n')) {
    const at = line.indexOf(marker);
    if (at === -1) continue;
    // "  - button "Pay now" [ref=e7] [cursor=pointer]:" -> button "Pay now"
    return line.slice(0, at).replace(/^\s*-\s*/, '').trim() || 'element';
  }
  return undefined;
}

/**
 * `text` cut to `limit` characters at a line end, with a marker saying how much was left out
 * and how to see it.
 */
export function capText(text: string, limit: number, what: string): string {
  if (text.length <= limit) return text;
  const cutAt = text.lastIndexOf('\n', limit);
  const kept = text.slice(0, cutAt > limit / 2 ? cutAt : limit);
  return `${kept}\n[... cut: ${text.length - kept.length} more characters of ${what}; scroll, or act on what is shown ...]`;
}

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

/** Roles a person acts on: their refs are shown; other elements' are left out. */
const actionable = new Set([
  'button',
  'link',
  'textbox',
  'searchbox',
  'combobox',
  'listbox',
  'option',
  'checkbox',
  'radio',
  'switch',
  'slider',
  'spinbutton',
  'menuitem',
  'menuitemcheckbox',
  'menuitemradio',
  'tab',
  'treeitem',
  'gridcell',
  'iframe',
]);

/**
 * The snapshot as the model gets it: refs only on elements one acts on (or that look clickable),
 * and no cursor hints on those that are obviously so. A table's rows and cells, headings and
 * wrappers keep their names and text but not their refs: on a typical page that is a third of
 * the bytes, sent with every model call. Every ref still resolves (the kept snapshot is whole).
 */
export function compactSnapshot(snapshot: string): string {
  const kept: string[] = [];
  // Indents of the unnamed wrappers dropped above the current line: their children move left.
  const dropped: number[] = [];
  for (const line of snapshot.split('\n')) {
    const indent = line.length - line.trimStart().length;
    while (dropped.length > 0 && dropped.at(-1)! >= indent) dropped.pop();
    const role = /^\s*-\s*([a-z]+)/.exec(line)?.[1];
    if (role !== undefined && wrappers.has(role) && /^\s*-\s*[a-z]+( \[ref=[a-z0-9]+\])?:$/i.test(line)) {
      dropped.push(indent);
      continue;
    }
    let shown = line.slice(Math.min(indent, dropped.length * 2));
    if (role !== undefined) {
      if (actionable.has(role)) shown = shown.replace(' [cursor=pointer]', '');
      else if (!shown.includes('[cursor=pointer]')) shown = shown.replace(/ \[ref=[a-z0-9]+\]/i, '');
    }
    kept.push(shown);
  }
  return kept.join('\n');
}

/** Containers that say nothing when they have no name: dropped, their children kept. */
const wrappers = new Set(['generic', 'rowgroup', 'group', 'none', 'presentation']);

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

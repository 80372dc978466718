/**
 * The live state of a conversation's browser for one model call: its tabs (always), the aria
 * snapshot of the active tab (`useAccessibility`) and a screenshot (`useScreenshot`), bounded so
 * a huge page cannot flood the context. Never throws: what could not be captured is said.
 */
import type { Page } from 'playwright-core';
import type { ImagePart } from '../llm/types.ts';
import type { LiveState } from '../tools/tool.ts';
import type { BrowserSettings } from './browser-settings.ts';
import type { Tabs } from './browser-session.ts';
import { capText, compactSnapshot, takeSnapshot } from './page-snapshot.ts';

/** Most characters of live state text per model call (about 30 KB). */
export const maxStateChars = 30_000;

/** How long a capture may take before it is given up for this call. */
const captureTimeoutMs = 3_000;

/** The state message content for one model call. */
export async function captureLiveState(tabs: Tabs, settings: Pick<BrowserSettings, 'useAccessibility' | 'useScreenshot'>): Promise<LiveState> {
  const [list, snapshot, image] = await Promise.all([
    tabList(tabs),
    settings.useAccessibility ? snapshotOf(tabs.active) : undefined,
    settings.useScreenshot ? screenshotOf(tabs.active) : undefined,
  ]);
  const parts = ['<browser_state note="your browser as it is now; shown for this call only">', `Tabs:\n${list}`];
  if (snapshot !== undefined) {
    const room = maxStateChars - parts.join('\n').length - 200;
    parts.push(`Active tab (aria snapshot; act on elements by their ref):\n${capText(snapshot, room, "the active tab's snapshot")}`);
  }
  if (typeof image === 'string') parts.push(image);
  parts.push('</browser_state>');
  return { text: parts.join('\n'), images: image && typeof image !== 'string' ? [image] : [] };
}

/** `1. "Title" https://... (active)`, one line per tab. */
export async function tabList(tabs: Pick<Tabs, 'pages' | 'active'>): Promise<string> {
  const lines = await Promise.all(
    tabs.pages.map(async (page, index) => {
      const title = await page.title().catch(() => '');
      return `${index + 1}. "${title.slice(0, 120)}" ${page.url().slice(0, 300)}${page === tabs.active ? ' (active)' : ''}`;
    }),
  );
  return lines.length > 0 ? lines.join('\n') : '(no tabs)';
}

async function snapshotOf(page: Page): Promise<string> {
  try {
    const text = compactSnapshot(await takeSnapshot(page, captureTimeoutMs));
    return text.trim() === '' ? '(the page is empty)' : text;
  } catch (error) {
    return `(no snapshot: ${firstLine(error)})`;
  }
}

/** A JPEG of the active tab's viewport, at most {@link maxScreenshotEdge} px (the context's scale), or why not. */
async function screenshotOf(page: Page): Promise<ImagePart | string> {
  try {
    const data = await page.screenshot({ type: 'jpeg', quality: 70, timeout: captureTimeoutMs, animations: 'disabled', caret: 'hide' });
    return { type: 'image', mediaType: 'image/jpeg', data: data.toString('base64') };
  } catch (error) {
    return `(no screenshot: ${firstLine(error)})`;
  }
}

/** The first line of an error (Playwright appends call logs). */
export function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300);
}

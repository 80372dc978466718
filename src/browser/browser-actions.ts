/**
 * What each browser action does to the conversation's tabs. Each returns one short line of what
 * happened; the tool adds where the tab is now. Elements are named by the refs of the tab's
 * latest aria snapshot.
 */
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type { ImagePart } from '../llm/types.ts';
import type { TurnContext } from '../tools/tool.ts';
import { checkUrl } from '../tools/net/url-policy.ts';
import type { BrowserSession, Tabs } from './browser-session.ts';
import { firstLine, tabList } from './browser-state.ts';
import { capText, compactSnapshot, describeRef, takeSnapshot } from './page-snapshot.ts';
import { makePrivateFolder } from '../core/private-modes.ts';

/** The arguments of one action (see the tool's schema). */
export interface ActionArgs {
  action: string;
  url?: string;
  ref?: string;
  text?: string;
  key?: string;
  values?: string[];
  submit?: boolean;
  direction?: 'up' | 'down';
  tab?: number;
  timeout_seconds?: number;
  send?: boolean;
}

/** What an action did: its line, an image for the model (screenshot), and whether it failed. */
export interface ActionOutcome {
  text: string;
  image?: ImagePart;
  isError?: boolean;
}

/** A failure the model can act on; its message is what it is told. */
export class ActionError extends Error {}

/** Most characters a `snapshot` action returns. */
const maxSnapshotChars = 40_000;

/** Runs one action. */
export async function runAction(session: BrowserSession, tabs: Tabs, args: ActionArgs, turn: TurnContext | undefined): Promise<ActionOutcome> {
  const page = tabs.active;
  const timeout = args.timeout_seconds === undefined ? undefined : args.timeout_seconds * 1000;
  switch (args.action) {
    case 'open':
      if (args.url) return navigate(session, page, need(args.url, 'url'), timeout);
      return { text: 'The browser is open.' };
    case 'navigate':
      return navigate(session, page, need(args.url, 'url'), timeout);
    case 'click': {
      const target = element(page, args.ref);
      // A link that opens a new tab: its tab arrives a moment after the click; waiting for it
      // lets this result say so (and the active tab be the new one), on a busy machine too.
      const newTab = (await opensNewTab(target)) ? page.context().waitForEvent('page', { timeout: 5_000 }).catch(() => undefined) : undefined;
      await target.click({ timeout });
      await newTab;
      await settle(page);
      return { text: `Clicked ${named(page, args.ref)}.` };
    }
    case 'hover':
      await element(page, args.ref).hover({ timeout });
      return { text: `Hovering over ${named(page, args.ref)}.` };
    case 'type': {
      const target = element(page, args.ref);
      await target.fill(need(args.text, 'text'), { timeout });
      if (args.submit) {
        await target.press('Enter', { timeout });
        await settle(page);
      }
      return { text: `Typed ${args.text!.length} characters into ${named(page, args.ref)}${args.submit ? ' and pressed Enter' : ''}.` };
    }
    case 'press': {
      const key = need(args.key, 'key');
      if (args.ref) await element(page, args.ref).press(key, { timeout });
      else await page.keyboard.press(key);
      await settle(page);
      return { text: `Pressed ${key}${args.ref ? ` in ${named(page, args.ref)}` : ''}.` };
    }
    case 'select': {
      const values = args.values && args.values.length > 0 ? args.values : [need(args.text, 'values')];
      const chosen = await element(page, args.ref).selectOption(values, { timeout });
      return { text: `Selected ${chosen.map((value) => JSON.stringify(value)).join(', ')} in ${named(page, args.ref)}.` };
    }
    case 'scroll': {
      if (args.ref) {
        await element(page, args.ref).scrollIntoViewIfNeeded({ timeout });
        return { text: `Scrolled ${named(page, args.ref)} into view.` };
      }
      const height = page.viewportSize()?.height ?? 800;
      await page.mouse.wheel(0, (args.direction === 'up' ? -1 : 1) * Math.round(height * 0.8));
      return { text: `Scrolled ${args.direction ?? 'down'} one screen.` };
    }
    case 'back':
      return { text: (await page.goBack({ timeout, waitUntil: 'domcontentloaded' })) ? 'Went back.' : 'There is no earlier page in this tab.' };
    case 'forward':
      return { text: (await page.goForward({ timeout, waitUntil: 'domcontentloaded' })) ? 'Went forward.' : 'There is no later page in this tab.' };
    case 'tab_list':
      return { text: `Tabs:\n${await tabList(tabs)}` };
    case 'tab_new': {
      const created = await tabs.context.newPage();
      session.activate(created);
      if (args.url) {
        const outcome = await navigate(session, created, args.url, timeout);
        return { ...outcome, text: `Opened a new tab. ${outcome.text}` };
      }
      return { text: 'Opened a new tab; it is the active one.' };
    }
    case 'tab_switch': {
      const target = tabAt(tabs, args.tab);
      session.activate(target);
      await target.bringToFront();
      return { text: `Switched to tab ${args.tab}.` };
    }
    case 'tab_close': {
      const target = args.tab === undefined ? page : tabAt(tabs, args.tab);
      const number = tabs.pages.indexOf(target) + 1;
      await target.close();
      return { text: `Closed tab ${number}.` };
    }
    case 'wait_for': {
      const waitMs = timeout ?? 10_000;
      if (args.ref) await element(page, args.ref).waitFor({ state: 'visible', timeout: waitMs });
      else await page.getByText(need(args.text, 'text or ref'), { exact: false }).first().waitFor({ state: 'visible', timeout: waitMs });
      return { text: args.ref ? `${named(page, args.ref)} is visible.` : `"${args.text}" is on the page.` };
    }
    case 'snapshot':
      return { text: capText(compactSnapshot(await takeSnapshot(page, timeout ?? 10_000)), maxSnapshotChars, 'the snapshot') };
    case 'screenshot':
      return screenshot(session, page, args.send === true, turn);
    default:
      throw new ActionError(`unknown action "${args.action}"`);
  }
}

/** What the tab shows after an action: `Now: "Title" https://...`. */
export async function whereNow(page: Page): Promise<string> {
  const title = await page.title().catch(() => '');
  return `Now: "${title.slice(0, 120)}" ${page.url().slice(0, 300)}`;
}

async function navigate(session: BrowserSession, page: Page, url: string, timeout: number | undefined): Promise<ActionOutcome> {
  const withScheme = /^[a-z][a-z0-9+.-]*:/i.test(url) ? url : `https://${url}`;
  const refused = await checkUrl(withScheme, session.settings);
  if (refused) throw new ActionError(`Not opened: ${refused}.`);
  try {
    const response = await page.goto(withScheme, { waitUntil: 'domcontentloaded', timeout });
    const status = response && !response.ok() ? ` (the server answered ${response.status()} ${response.statusText()})` : '';
    return { text: `Opened ${withScheme}${status}.` };
  } catch (error) {
    if ((error as Error).name === 'TimeoutError') {
      const seconds = Math.round((timeout ?? 30_000) / 1000);
      return { text: `The page did not finish loading within ${seconds} s; what arrived so far is shown (it may still be loading).`, isError: true };
    }
    throw error;
  }
}

async function screenshot(session: BrowserSession, page: Page, send: boolean, turn: TurnContext | undefined): Promise<ActionOutcome> {
  const jpeg = await page.screenshot({ type: 'jpeg', quality: 70 });
  const image: ImagePart = { type: 'image', mediaType: 'image/jpeg', data: jpeg.toString('base64') };
  if (!send) return { text: 'Screenshot of the active tab:', image };
  await makePrivateFolder(session.downloads);
  const path = join(session.downloads, `screenshot-${new Date().toISOString().replace(/[:.]/g, '-')}.png`);
  await page.screenshot({ type: 'png', path });
  if (!turn?.attachFile) return { text: `Screenshot saved to ${path} (there is no chat here to send it to).`, image };
  try {
    return { text: `Screenshot of the active tab: ${await turn.attachFile(path, 'screenshot.png')}`, image };
  } catch (error) {
    return { text: `Screenshot saved to ${path}, but not sent: ${firstLine(error)}`, image, isError: true };
  }
}

/** The element `ref` names in the tab's latest snapshot, or an error saying how to get refs. */
function element(page: Page, ref: string | undefined) {
  const name = need(ref, 'ref');
  if (!describeRef(page, name)) {
    throw new ActionError(`ref "${name}" is not in the latest snapshot of this tab (the page may have changed); take a snapshot and use a ref from it.`);
  }
  return page.getByRef(name);
}

function named(page: Page, ref: string | undefined): string {
  return (ref && describeRef(page, ref)) ?? 'the element';
}

function tabAt(tabs: Tabs, number: number | undefined): Page {
  const page = number === undefined ? undefined : tabs.pages[number - 1];
  if (!page) throw new ActionError(`there is no tab ${number ?? '(missing "tab")'}; the tabs are 1 to ${tabs.pages.length}`);
  return page;
}

function need<T>(value: T | undefined, name: string): T {
  if (value === undefined || value === '') throw new ActionError(`this action needs "${name}"`);
  return value;
}

/** Whether `target` is (inside) a link whose target is another tab or window. */
function opensNewTab(target: Locator): Promise<boolean> {
  // Runs in the page (this project compiles without the DOM's types, hence the shape spelled out).
  const linkTarget = (node: { closest(selector: string): { target: string } | null }) => node.closest('a[href]')?.target ?? '';
  return target.evaluate(linkTarget, undefined, { timeout: 2_000 }).then(
    (where) => where !== '' && !['_self', '_parent', '_top'].includes(where),
    () => false,
  );
}

/** Gives a navigation an action started a moment to begin and reach the new document. */
async function settle(page: Page): Promise<void> {
  await page.waitForLoadState('domcontentloaded', { timeout: 5_000 }).catch(() => undefined);
}

/**
 * Keeps a browser context to the addresses the policy allows: every request a page makes
 * (navigations, frames, scripts, fetches) and every websocket is checked, so a public page cannot
 * reach into this machine or its network on the agent's behalf. Host lookups are remembered for a
 * minute, since a page asks for the same hosts many times.
 */
import type { BrowserContext } from 'playwright-core';
import { checkUrl, type UrlPolicy } from '../tools/net/url-policy.ts';

const rememberMs = 60_000;

/** Whether the policy restricts anything (when not, no request needs checking). */
export function restricts(policy: UrlPolicy): boolean {
  return !policy.allowPrivateNetwork || policy.allowUrls.length > 0 || policy.blockUrls.length > 0;
}

/** A checker of addresses under `policy`, remembering each origin's answer for a minute. */
export function urlChecker(policy: UrlPolicy): (url: string) => Promise<string | undefined> {
  const answers = new Map<string, { reason: string | undefined; until: number }>();
  return async (url) => {
    // Pages' own data and blob addresses never leave the browser.
    if (url.startsWith('data:') || url.startsWith('blob:') || url === 'about:blank') return undefined;
    const key = policy.allowUrls.length > 0 || policy.blockUrls.some((pattern) => pattern.includes('://')) ? url : originOf(url);
    const known = answers.get(key);
    if (known && known.until > Date.now()) return known.reason;
    const reason = await checkUrl(url, policy);
    if (answers.size > 1_000) answers.clear();
    answers.set(key, { reason, until: Date.now() + rememberMs });
    return reason;
  };
}

/** Routes every request and websocket of `context` through `check`; refused ones are aborted. */
export async function guardContext(context: BrowserContext, check: (url: string) => Promise<string | undefined>, refused: (url: string, reason: string) => void): Promise<void> {
  await context.route('**/*', async (route) => {
    const url = route.request().url();
    const reason = await check(url);
    if (reason === undefined) return route.fallback();
    refused(url, reason);
    return route.abort('blockedbyclient');
  });
  await context.routeWebSocket(/.*/, async (socket) => {
    const reason = await check(socket.url().replace(/^ws/, 'http'));
    if (reason === undefined) return socket.connectToServer();
    refused(socket.url(), reason);
    return socket.close({ code: 1008, reason: 'refused' });
  });
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/**
 * Which chromium the browser runs. A configured `executablePath` is used as it is, or reported
 * missing: never silently replaced by another browser. Without one, Playwright's own lookup (a
 * browser it installed), then Debian's /usr/bin/chromium.
 */
import { isExecutable } from '../core/executables.ts';
import { chooseBrowserIsolation, describeBrowserIsolation, type BrowserIsolationOptions } from './browser-isolation.ts';

/** The chromium found, or why none can run. */
export type ChromiumLookup = { path: string } | { problem: string };

/** Where Debian and Ubuntu put chromium. */
export const systemChromium = '/usr/bin/chromium';

/**
 * Finds the browser to launch for `executablePath` (the configured one, if any); `system` is
 * where the system's chromium is looked for last.
 */
export async function findChromium(executablePath: string | undefined, system = systemChromium): Promise<ChromiumLookup> {
  if (executablePath !== undefined) {
    if (isExecutable(executablePath)) return { path: executablePath };
    return { problem: `the configured browser ${executablePath} (browser.executablePath) does not exist or cannot be run; fix the path or remove the setting` };
  }
  try {
    const { chromium } = await import('playwright-core');
    const own = chromium.executablePath();
    if (own && isExecutable(own)) return { path: own };
  } catch {
    // No browser of Playwright's own here: the system's is next.
  }
  if (isExecutable(system)) return { path: system };
  return { problem: 'no chromium is installed on the machine running the gateway (install it, e.g. `apt-get install chromium`, or set browser.executablePath)' };
}

/**
 * One line on the browser for the start-up output, without loading Playwright (which would slow
 * the start): the configured or system chromium, or what is missing, and how it is isolated
 * (`where` is what {@link chooseBrowserIsolation} looks at).
 */
export function describeBrowserSetup(
  settings: { enabled: boolean; executablePath?: string; headless: boolean; maxContexts: number },
  where: Pick<BrowserIsolationOptions, 'env' | 'hidden'>,
): string {
  if (!settings.enabled) return 'off (browser.enabled is false)';
  const path = settings.executablePath ?? systemChromium;
  if (!isExecutable(path)) {
    return settings.executablePath
      ? `browser.executablePath ${path} does not exist; the browser tool will say so when called`
      : `no chromium at ${systemChromium} (install it, e.g. apt-get install chromium, or set browser.executablePath); Playwright's own browsers are looked for at first use`;
  }
  const isolation = describeBrowserIsolation(chooseBrowserIsolation(where));
  return `${path}${settings.headless ? ', headless' : ''}, started at first use, at most ${settings.maxContexts} conversations at once; runs ${isolation}`;
}

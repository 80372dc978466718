/**
 * The switches the agent's browser adds to Playwright's: the address bar's WebUI popups off, and
 * every feature Playwright itself turns off still off (chromium keeps only the last
 * `--disable-features`). Playwright's list is read from the installed playwright-core.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chromiumFeatureSwitches, omniboxPopupFeatures, playwrightListVersion, playwrightVersion } from '../../src/browser/chromium-features.ts';

/** The `disabledFeatures` of the installed playwright-core's chromium switches. */
function installedPlaywrightDisabled(): string[] {
  const root = dirname(createRequire(import.meta.url).resolve('playwright-core/package.json'));
  const bundle = readFileSync(join(root, 'lib', 'coreBundle.js'), 'utf8');
  const start = bundle.indexOf('disabledFeatures = [');
  expect(start, 'playwright-core has no disabledFeatures list where it was').toBeGreaterThan(-1);
  const list = bundle.slice(start, bundle.indexOf(']', start));
  return [...list.matchAll(/^\s*"([A-Za-z]+)",?\s*$/gm)].map((match) => match[1]!);
}

describe('chromium feature switches', () => {
  it('were read from the installed playwright-core', () => {
    expect(playwrightVersion()).toBe(playwrightListVersion);
  });

  it("turn off the address bar's WebUI popups and every feature Playwright turns off, in one switch", () => {
    const switches = chromiumFeatureSwitches();
    expect(switches).toHaveLength(1);
    const features = switches[0]!.replace('--disable-features=', '').split(',');
    expect(features).toEqual(expect.arrayContaining(omniboxPopupFeatures));
    const playwright = installedPlaywrightDisabled();
    expect(playwright.length).toBeGreaterThan(5);
    expect(features).toEqual(expect.arrayContaining(playwright));
  });

  it("add nothing with another playwright-core, whose own list may differ", () => {
    expect(chromiumFeatureSwitches('9.9.9')).toEqual([]);
  });
});

/** Debian's chromium, which the browser tests drive through playwright-core. */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { whenInstalled } from './needs-program.ts';

const chromiumPath = '/usr/bin/chromium';

const playwrightVersion = (createRequire(import.meta.url)('playwright-core/package.json') as { version: string }).version;

/**
 * The features playwright-core 1.65 turns off (its `--disable-features`). Chromium keeps only the
 * last `--disable-features` it is given, so the tests' own list must repeat them; {@link launchChromium}
 * refuses another playwright-core, whose list may differ.
 */
const listedFor = '1.65.1';
const playwrightDisabled = [
  'AvoidUnnecessaryBeforeUnloadCheckSync',
  'DestroyProfileOnBrowserClose',
  'HttpsUpgrades',
  'HttpsFirstBalancedModeAutoEnable',
  'LensOverlay',
  'MediaRouter',
  'PaintHolding',
  'ThirdPartyStoragePartitioning',
  'AvoidCorsURLLoaderRestartOnRedirect',
  'TcpPortRandomizationWin',
  'OptimizationHints',
  'NetworkTimeServiceQuerying',
  'AimEnabled',
  'PreconnectToSearch',
  'msForceBrowserSignIn',
  'msEdgeUpdateLaunchServicesPreferredVersion',
];

/**
 * The address bar's suggestion popups, which chromium 156 builds as web pages: every browser
 * context (each `newPage`, each `newContext`) opens a window whose two popups are loaded at once
 * in a renderer of their own, about 1 to 2 CPU-seconds each on this machine, although a headless
 * window never shows them. The tests' pages do not use the address bar.
 */
const omniboxPopups = ['WebUIOmniboxPopup', 'WebUIOmniboxFullPopup', 'WebUIOmniboxAimPopup'];

// No sandbox, which chromium cannot use when run as root (as tests in containers often are), and
// nothing that reaches out on its own: a test must neither wait on the network nor be changed by it.
// No GPU process work (software rendering is all a headless test page needs), and no popups above.
const launchArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  `--disable-features=${[...playwrightDisabled, ...omniboxPopups].join(',')}`,
];

/**
 * Starts a headless chromium for a test to play the person with. One per file is enough: a test
 * gets its own cookies and storage from a context of its own (`browser.newPage()` makes one).
 *
 * @throws Error when playwright-core is another version than the one `playwrightDisabled` was read from.
 */
export function launchChromium(): Promise<Browser> {
  if (playwrightVersion !== listedFor) {
    throw new Error(`test/helpers/chromium.ts: playwrightDisabled is playwright-core ${listedFor}'s list; copy ${playwrightVersion}'s (chromiumSwitches) and update listedFor`);
  }
  return chromium.launch({ executablePath: chromiumPath, args: launchArgs, headless: true });
}

/**
 * Declares the suite `suite` through `declare` when /usr/bin/chromium is there; otherwise a
 * stand-in that fails under CI and is skipped elsewhere (see `whenInstalled`). `runs` says what
 * does not run without it.
 */
export function whenChromiumInstalled(suite: string, runs: string, declare: () => void): void {
  whenInstalled(existsSync(chromiumPath) ? chromiumPath : undefined, { suite, program: chromiumPath, install: 'apt-get install -y chromium', runs }, declare);
}

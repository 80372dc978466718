/** Debian's chromium, which the browser tests drive through playwright-core. */
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { chromiumFeatureSwitches } from '../../src/browser/chromium-features.ts';
import { whenInstalled } from './needs-program.ts';

const chromiumPath = '/usr/bin/chromium';

// No sandbox, which chromium cannot use when run as root (as tests in containers often are), and
// nothing that reaches out on its own: a test must neither wait on the network nor be changed by it.
// No GPU (software rendering is all a headless test page needs), and no address-bar popups built as
// web pages, which cost two renderers per context (see src/browser/chromium-features.ts).
const launchArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  ...chromiumFeatureSwitches(),
];

/**
 * Starts a headless chromium for a test to play the person with. One per file is enough: a test
 * gets its own cookies and storage from a context of its own (`browser.newPage()` makes one).
 */
export function launchChromium(): Promise<Browser> {
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

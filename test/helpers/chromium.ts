/** Debian's chromium, which the browser tests drive through playwright-core. */
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { whenInstalled } from './needs-program.ts';

const chromiumPath = '/usr/bin/chromium';

// No sandbox, which chromium cannot use when run as root (as tests in containers often are), and
// nothing that reaches out on its own: a test must neither wait on the network nor be changed by it.
const launchArgs = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/** Starts a headless chromium. */
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

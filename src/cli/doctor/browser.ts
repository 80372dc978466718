/**
 * Doctor check: a chromium to run when the agent's browser is enabled, and how it is kept apart
 * from the gateway here. One real chromium is started the way the gateway starts it (in
 * bubblewrap, with chromium's own sandbox, or with none), so the line says what really runs.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chooseBrowserIsolation, describeBrowserIsolation, type BrowserIsolation, type BrowserIsolationOptions } from '../../browser/browser-isolation.ts';
import { launchChromium } from '../../browser/chromium-launcher.ts';
import { findChromium } from '../../browser/find-chromium.ts';
import type { GatewayConfig } from '../../gateway/config/index.ts';
import { operatorHome } from '../../store/from-env.ts';
import { messageOf, type CheckResult } from './check.ts';

const name = 'Browser';

/** What {@link checkBrowser} may be told instead of looking for itself. */
export interface BrowserCheckOptions {
  /** The isolation instead of the one chosen for this machine. */
  isolation?: BrowserIsolation;
  /** Passed to the choice of isolation (another `bwrap`, say). */
  choose?: Pick<BrowserIsolationOptions, 'bwrap' | 'uid' | 'userNamespaces'>;
}

/**
 * Whether `browser.enabled` (or a profile's) turns the browser on, and if so whether chromium is
 * there, starts, and in which isolation.
 */
export async function checkBrowser(config: Pick<GatewayConfig, 'browser' | 'profileSettings'>, env: NodeJS.ProcessEnv, options: BrowserCheckOptions = {}): Promise<CheckResult> {
  const profiles = Object.entries(config.profileSettings)
    .filter(([, settings]) => settings.browser?.enabled === true)
    .map(([profile]) => profile);
  if (!config.browser.enabled && profiles.length === 0) return { level: 'OK', name, detail: 'off (browser.enabled is false)' };
  const lookup = await findChromium(config.browser.executablePath);
  const scope = config.browser.enabled ? 'enabled' : `enabled for ${profiles.join(', ')}`;
  if ('problem' in lookup) {
    return { level: 'FAIL', name, detail: `${scope}, but ${lookup.problem}`, fix: 'install chromium (apt-get install chromium), or set browser.enabled to false in operator.json' };
  }
  const hidden = [operatorHome(env)];
  const isolation = options.isolation ?? chooseBrowserIsolation({ env, hidden, ...options.choose });
  const found = `${scope}, chromium at ${lookup.path}`;
  const folder = mkdtempSync(join(tmpdir(), 'operator-doctor-browser-'));
  let runs: string;
  try {
    for (const inside of ['downloads', 'home']) mkdirSync(join(folder, inside));
    const launched = await launchChromium({ executablePath: lookup.path, headless: config.browser.headless, isolation, env, hidden, folder, innerSandbox: true });
    await launched.browser.close();
    runs = isolation.kind === 'bubblewrap' && !launched.chromiumSandbox ? "in bubblewrap; chromium's own sandbox cannot start inside it here (user namespaces refused); an allowlisted environment" : describeBrowserIsolation(isolation);
  } catch (error) {
    return { level: 'FAIL', name, detail: `${found}, but it did not start: ${messageOf(error).split('\n')[0]}`, fix: 'run the same chromium by hand to see why, or set browser.enabled to false in operator.json' };
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
  if (isolation.kind === 'none') {
    return { level: 'WARN', name, detail: `${found}, runs ${runs}`, fix: 'install bubblewrap (apt-get install bubblewrap), or run operator as a user other than root where user namespaces are on' };
  }
  return { level: 'OK', name, detail: `${found}, runs ${runs}` };
}

/** Doctor check: a chromium to run when the agent's browser is enabled. */
import { findChromium } from '../../browser/find-chromium.ts';
import type { GatewayConfig } from '../../gateway/config/index.ts';
import type { CheckResult } from './check.ts';

const name = 'Browser';

/** Whether `browser.enabled` (or a profile's) turns the browser on, and if so whether chromium is there. */
export async function checkBrowser(config: Pick<GatewayConfig, 'browser' | 'profileSettings'>): Promise<CheckResult> {
  const profiles = Object.entries(config.profileSettings)
    .filter(([, settings]) => settings.browser?.enabled === true)
    .map(([profile]) => profile);
  if (!config.browser.enabled && profiles.length === 0) return { level: 'OK', name, detail: 'off (browser.enabled is false)' };
  const lookup = await findChromium(config.browser.executablePath);
  const scope = config.browser.enabled ? 'enabled' : `enabled for ${profiles.join(', ')}`;
  if ('path' in lookup) return { level: 'OK', name, detail: `${scope}, chromium at ${lookup.path}` };
  return { level: 'FAIL', name, detail: `${scope}, but ${lookup.problem}`, fix: 'install chromium (apt-get install chromium), or set browser.enabled to false in operator.json' };
}

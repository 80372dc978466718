/**
 * The chromium features the agent's browser turns off beyond Playwright's own: the address bar's
 * suggestion popups, which chromium 156 builds as web pages (`chrome://omnibox-popup.top-chrome`).
 * Each browser context (one per conversation) opens a window whose two popups load at once, in a
 * renderer process of their own, at 1 to 2 CPU-seconds each on a 2-core machine, although the
 * agent never types in an address bar and a headless window never shows one. Without them a
 * context costs two processes and those seconds less; in a headed browser the address bar still
 * works, with chromium's native popup.
 *
 * Chromium keeps only the last `--disable-features` it is given, so the switch repeats the list
 * Playwright passes (its `chromiumSwitches`). That list is the one of the playwright-core version
 * named below; with another version the switch is left out (Playwright's defaults stand, the
 * popups load) rather than dropping features Playwright turns off.
 */
import { createRequire } from 'node:module';

/** The playwright-core version whose `--disable-features` list {@link playwrightDisabled} is. */
export const playwrightListVersion = '1.65.1';

/** The features playwright-core {@link playwrightListVersion} turns off. */
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

/** The address bar's WebUI popups (see the module's comment). */
export const omniboxPopupFeatures = ['WebUIOmniboxPopup', 'WebUIOmniboxFullPopup', 'WebUIOmniboxAimPopup'];

/** The installed playwright-core's version. */
export function playwrightVersion(): string {
  return (createRequire(import.meta.url)('playwright-core/package.json') as { version: string }).version;
}

/**
 * The switches to add to Playwright's: one `--disable-features` with Playwright's features and
 * {@link omniboxPopupFeatures}, or none when playwright-core is not {@link playwrightListVersion}.
 */
export function chromiumFeatureSwitches(version = playwrightVersion()): string[] {
  if (version !== playwrightListVersion) return [];
  return [`--disable-features=${[...playwrightDisabled, ...omniboxPopupFeatures].join(',')}`];
}

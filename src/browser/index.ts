/** The agent's web browser: a tool, one Playwright context per conversation, and its live state. */
export { BrowserPool, BrowserUnavailableError } from './browser-pool.ts';
export { BrowserSession } from './browser-session.ts';
export { createBrowserTool, browserActions } from './browser-tool.ts';
export { browserSettingsFor, defaultBrowserSettings, maxScreenshotEdge, type BrowserConfig, type BrowserSettings } from './browser-settings.ts';
export { findChromium, systemChromium } from './find-chromium.ts';
export { chooseBrowserIsolation, describeBrowserIsolation, type BrowserIsolation } from './browser-isolation.ts';

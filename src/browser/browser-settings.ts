/** How the agent's browser runs (operator.json `browser`, overridable per profile). */

/** The browser's settings, complete. */
export interface BrowserSettings {
  /**
   * Whether the `browser` tool is offered (default true). Without a chromium on the machine it is
   * still offered, and says so plainly when called.
   */
  enabled: boolean;
  /** The browser to run; unset: Playwright's own lookup, then /usr/bin/chromium. */
  executablePath?: string;
  headless: boolean;
  /** Each model call gets a screenshot of the active tab (more tokens; off by default). */
  useScreenshot: boolean;
  /** Each model call gets the aria snapshot of the active tab, with element refs. */
  useAccessibility: boolean;
  viewport: { width: number; height: number };
  /** A conversation's browser closes after this many seconds without a browser action. */
  idleTimeoutSeconds: number;
  /** Browser contexts open at once in this process; the oldest idle one is closed for a new one. */
  maxContexts: number;
  /** When not empty, only these sites may be opened (patterns: see `tools/net/url-policy.ts`). */
  allowUrls: readonly string[];
  /** Sites never opened. */
  blockUrls: readonly string[];
  /** Whether this machine and private networks may be reached (operator.json's top-level setting). */
  allowPrivateNetwork: boolean;
}

/** The settings when nothing is configured. */
export const defaultBrowserSettings: BrowserSettings = {
  enabled: true,
  headless: true,
  useScreenshot: false,
  useAccessibility: true,
  viewport: { width: 1280, height: 800 },
  idleTimeoutSeconds: 600,
  maxContexts: 8,
  allowUrls: [],
  blockUrls: [],
  allowPrivateNetwork: false,
};

/** Most pixels on a screenshot's long edge: larger images are scaled down by the providers anyway. */
export const maxScreenshotEdge = 1568;

/** The browser settings of every profile: the top-level ones, and each profile's overrides. */
export interface BrowserConfig {
  base: BrowserSettings;
  profiles: Readonly<Record<string, Partial<BrowserSettings>>>;
}

/** The settings of `profile`'s conversations. */
export function browserSettingsFor(config: BrowserConfig, profile: string): BrowserSettings {
  const own = config.profiles[profile];
  return own ? { ...config.base, ...own, allowPrivateNetwork: config.base.allowPrivateNetwork } : config.base;
}

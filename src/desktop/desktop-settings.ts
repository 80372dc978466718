/** How the agent's desktop runs (operator.json `desktop`, overridable per profile). Off by default. */

/** The desktop's settings, complete. */
export interface DesktopSettings {
  /** Whether the `desktop` tool is offered (default false: it drives this machine's real display). */
  enabled: boolean;
  /** The X display to drive (`:99`); unset: the gateway's DISPLAY. Without either the tool is not offered. */
  display?: string;
  /** Each model call gets a screenshot of the screen while the desktop is in use (default true: windows have no text view). */
  useScreenshot: boolean;
  /** The desktop's state stops riding along after this many seconds without a desktop action. */
  idleTimeoutSeconds: number;
}

/** The settings when nothing is configured. */
export const defaultDesktopSettings: DesktopSettings = {
  enabled: false,
  useScreenshot: true,
  idleTimeoutSeconds: 600,
};

/** The desktop settings of every profile: the top-level ones, and each profile's overrides. */
export interface DesktopConfig {
  base: DesktopSettings;
  profiles: Readonly<Record<string, Partial<DesktopSettings>>>;
}

/** The settings of `profile`'s conversations. */
export function desktopSettingsFor(config: DesktopConfig, profile: string): DesktopSettings {
  const own = config.profiles[profile];
  return own ? { ...config.base, ...own } : config.base;
}

/** The display `settings` drive in an environment whose DISPLAY is `envDisplay`, or undefined when there is none. */
export function displayOf(settings: Pick<DesktopSettings, 'display'>, envDisplay: string | undefined): string | undefined {
  const name = settings.display ?? envDisplay;
  return name && name.trim() !== '' ? name.trim() : undefined;
}

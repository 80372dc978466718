/** The agent's desktop: a tool over this machine's X display, and its live state. */
export { DesktopSession } from './desktop-session.ts';
export { createDesktopTool, desktopActions } from './desktop-tool.ts';
export { defaultDesktopSettings, desktopSettingsFor, type DesktopConfig, type DesktopSettings } from './desktop-settings.ts';
export { describeDesktopSetup, offeredDisplay } from './desktop-setup.ts';

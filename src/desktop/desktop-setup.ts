/**
 * Whether the desktop is offered, and the start-up line that says why or why not: off unless
 * configured; absent (not offered, not broken) without a display; offered but reporting what is
 * missing when its programs are not installed.
 */
import { displayOf, type DesktopSettings } from './desktop-settings.ts';
import { desktopPrograms, missingPrograms } from './x-programs.ts';

/** The display the desktop tool drives, or undefined when it is not offered (off, or no display). */
export function offeredDisplay(settings: DesktopSettings, env: NodeJS.ProcessEnv): string | undefined {
  return settings.enabled ? displayOf(settings, env.DISPLAY) : undefined;
}

/** One line on the desktop for the start-up output (no program runs). */
export function describeDesktopSetup(settings: DesktopSettings, env: NodeJS.ProcessEnv): string {
  if (!settings.enabled) return 'off (turn it on with desktop.enabled in operator.json)';
  const display = offeredDisplay(settings, env);
  if (!display) return 'enabled, but there is no display: set DISPLAY or desktop.display (the desktop tool is not offered)';
  const missing = missingPrograms();
  if (missing.length > 0) {
    const packages = [...new Set(missing.map((program) => desktopPrograms[program]))].join(' ');
    return `display ${display}, but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing (apt-get install ${packages}); the desktop tool will say so when called`;
  }
  return `display ${display}${settings.useScreenshot ? ', with a screenshot on each call while in use' : ''}`;
}

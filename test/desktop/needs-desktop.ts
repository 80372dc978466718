/** The desktop suites need an X server, the desktop's programs and chromium (see `.ci/run`). */
import { existsSync } from 'node:fs';
import { whenInstalled } from '../helpers/needs-program.ts';

const programs = ['/usr/bin/Xvfb', '/usr/bin/xdotool', '/usr/bin/maim', '/usr/bin/xwininfo', '/usr/bin/xmessage', '/usr/bin/chromium'];

/**
 * Declares the suite through `declare` when Xvfb, the desktop's programs and chromium are all
 * installed; otherwise a stand-in that fails under CI and is skipped elsewhere.
 */
export function whenDesktopInstalled(suite: string, runs: string, declare: () => void): void {
  const missing = programs.filter((path) => !existsSync(path));
  whenInstalled(missing.length === 0 ? true : undefined, { suite, program: missing.join(', '), install: 'apt-get install -y xvfb xdotool maim x11-utils chromium', runs }, declare);
}

/**
 * The desktop, on Xvfb with a chromium window and a message box: live state capture per model
 * call (text alone, with a screenshot at the screen's size, with one scaled down from 1920x1080),
 * the bytes it adds to a call, and one click as the tool runs it. The floor is one run of the
 * cheapest X program (`xdotool getdisplaygeometry`) in the same run: every figure is a few of
 * those.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { captureDesktopState, DesktopSession } from '../src/desktop/desktop-session.ts';
import { defaultDesktopSettings } from '../src/desktop/desktop-settings.ts';
import { createDesktopTool } from '../src/desktop/desktop-tool.ts';
import { runX, type XDisplay } from '../src/desktop/x-programs.ts';
import { startDisplay } from '../test/desktop/x-display.ts';
import { median, sample, type BenchResult } from './lib.ts';

const tool = createDesktopTool();

export default async function run(): Promise<BenchResult[]> {
  const needed = ['/usr/bin/Xvfb', '/usr/bin/xdotool', '/usr/bin/maim', '/usr/bin/xwininfo', '/usr/bin/chromium'].filter((path) => !existsSync(path));
  if (needed.length > 0) return [{ name: `desktop: not measured, ${needed.join(', ')} missing (apt-get install xvfb xdotool maim x11-utils chromium)`, value: Number.NaN, unit: '' }];
  const small = await measure(1280, 800);
  const large = await measure(1920, 1080);
  return [
    { name: 'one X program run, xdotool getdisplaygeometry (floor)', value: small.floor, unit: 'ms' },
    { name: 'state capture per model call, text: focus and windows (median)', value: small.text, unit: 'ms', target: '<= 40 ms', pass: small.text <= 40, note: `${(small.text / small.floor).toFixed(1)}x the floor` },
    { name: 'state capture per model call, with a 1280x800 screenshot (median)', value: small.image, unit: 'ms', target: '<= 150 ms', pass: small.image <= 150, note: `${(small.image / small.floor).toFixed(1)}x the floor` },
    { name: 'state capture per model call, 1920x1080 scaled to 1568 px (median)', value: large.image, unit: 'ms', target: '<= 150 ms', pass: large.image <= 150, note: `${(large.image / large.floor).toFixed(1)}x the floor` },
    { name: 'text added per model call (a browser window and a message box)', value: small.textBytes / 1024, unit: 'KB', target: '<= 30 KB', pass: small.textBytes <= 30 * 1024 },
    { name: 'screenshot added per model call, 1280x800 JPEG', value: small.imageBytes / 1024, unit: 'KB' },
    { name: 'screenshot added per model call, 1920x1080 as 1568x882 JPEG', value: large.imageBytes / 1024, unit: 'KB' },
    { name: 'a click as the tool runs it, with the focused window after (median)', value: small.click, unit: 'ms', note: `${(small.click / small.floor).toFixed(1)}x the floor: the screen size, the click, the focused window` },
  ];
}

interface Figures {
  floor: number;
  text: number;
  image: number;
  textBytes: number;
  imageBytes: number;
  click: number;
}

async function measure(width: number, height: number): Promise<Figures> {
  const x = await startDisplay(width, height);
  try {
    await x.openPage();
    await x.openMessage('notes');
    const display: XDisplay = x.display;
    const signal = new AbortController().signal;
    const floor = median(await sample(30, () => runX('xdotool', ['getdisplaygeometry'], display), 5));
    const text = median(await sample(30, () => captureDesktopState(display, false, signal), 5));
    const image = median(await sample(30, () => captureDesktopState(display, true, signal), 5));
    const state = await captureDesktopState(display, true, signal);
    const session = new DesktopSession({ settings: { ...defaultDesktopSettings, enabled: true }, display, files: join(tmpdir(), 'operator-bench-desktop') });
    const click = median(
      await sample(20, () => tool.execute(tool.parameters.parse({ action: 'click', x: 500, y: 400 }), { signal, cwd: process.cwd(), toolCallId: 'bench', surfaces: { desktop: session } }), 3),
    );
    const imageBytes = state.images[0]?.data ? Buffer.from(state.images[0].data, 'base64').length : 0;
    return { floor, text, image, textBytes: Buffer.byteLength(state.text), imageBytes, click };
  } finally {
    await x.close();
  }
}

/**
 * One conversation's use of the desktop. The display is the machine's, shared by every
 * conversation allowed on it, so actions on one display run one at a time whoever asks; what is
 * the conversation's own is whether the desktop's state rides along with its model calls: from
 * its first desktop action until `close`, `/new`, `/stop` or the idle timeout.
 */
import type { LiveState, LiveSurface } from '../tools/tool.ts';
import { focusState, listWindows, screenshot, toShot, type DesktopWindow, type Screen } from './desktop-capture.ts';
import type { DesktopSettings } from './desktop-settings.ts';
import type { XDisplay } from './x-programs.ts';

/** Most characters of desktop state text per model call (about 30 KB). */
export const maxStateChars = 30_000;

/** Most characters of one window's name in the state. */
const maxNameChars = 200;

/** The action running on each display (by name), which the next one waits for. */
const displayQueues = new Map<string, Promise<unknown>>();

/** A conversation's desktop: see the file's comment. */
export class DesktopSession implements LiveSurface {
  readonly tool = 'desktop';
  readonly settings: DesktopSettings;
  readonly display: XDisplay;
  /** The conversation's folder, where screenshots sent to the chat are written first. */
  readonly files: string;
  readonly #now: () => number;
  #lastUsed: number | undefined;

  constructor(options: { settings: DesktopSettings; display: XDisplay; files: string; now?: () => number }) {
    this.settings = options.settings;
    this.display = options.display;
    this.files = options.files;
    this.#now = options.now ?? Date.now;
  }

  /** Whether the desktop is in use here: acted on, and not idle longer than the timeout since. */
  get isOpen(): boolean {
    if (this.#lastUsed === undefined) return false;
    if (this.#now() - this.#lastUsed <= this.settings.idleTimeoutSeconds * 1000) return true;
    this.#lastUsed = undefined;
    return false;
  }

  /** Runs `action` when no other action runs on this display; once it worked, the desktop is in use. */
  async use<T>(action: (display: XDisplay) => Promise<T>): Promise<T> {
    const previous = displayQueues.get(this.display.name) ?? Promise.resolve();
    const run = previous.then(
      () => action(this.display),
      () => action(this.display),
    );
    const settled = run.catch(() => undefined);
    displayQueues.set(this.display.name, settled);
    try {
      const value = await run;
      // In use from the first action that worked: one that failed (no display) shows nothing.
      this.#lastUsed = this.#now();
      return value;
    } finally {
      if (displayQueues.get(this.display.name) === settled) displayQueues.delete(this.display.name);
    }
  }

  async liveState(signal: AbortSignal): Promise<LiveState | undefined> {
    if (!this.isOpen) return undefined;
    return captureDesktopState(this.display, this.settings.useScreenshot, signal);
  }

  /** Stops the state riding along; the windows stay as they are. */
  async close(): Promise<void> {
    this.#lastUsed = undefined;
  }
}

/** The state message content for one model call. Never throws: what could not be captured is said. */
export async function captureDesktopState(display: XDisplay, withScreenshot: boolean, signal: AbortSignal): Promise<LiveState> {
  const head = `<desktop_state note="the desktop (display ${display.name}) as it is now; shown for this call only">`;
  let focus: Awaited<ReturnType<typeof focusState>>;
  try {
    focus = await focusState(display, signal);
  } catch (error) {
    return { text: `${head}\n(the desktop cannot be seen: ${messageOf(error)})\n</desktop_state>`, images: [] };
  }
  const { screen } = focus;
  const [windows, image] = await Promise.all([
    listWindows(display, signal).catch((error: unknown) => `(no window list: ${messageOf(error)})`),
    withScreenshot ? screenshot(display, screen, signal).catch((error: unknown) => `(no screenshot: ${messageOf(error)})`) : undefined,
  ]);
  const parts = [head, screenLine(screen)];
  parts.push(focus.focused ? `Focused window: "${cut(focus.focused.name)}" (id ${focus.focused.id})` : 'Focused window: none');
  if (typeof image === 'string') parts.push(image);
  const room = maxStateChars - parts.join('\n').length - 100;
  parts.push(typeof windows === 'string' ? windows : windowList(windows, screen, room), '</desktop_state>');
  return { text: parts.join('\n'), images: image && typeof image !== 'string' ? [image] : [] };
}

/** `Screen: 1920x1080; screenshot 1568x882 ...`: which pixels the model's points are in. */
export function screenLine(screen: Screen): string {
  if (screen.scale === 1) return `Screen: ${screen.width}x${screen.height} (points are screen pixels)`;
  const shot = toShot(screen, screen.width, screen.height);
  return `Screen: ${screen.width}x${screen.height}, shown as ${shot.x}x${shot.y} (points, here and in your actions, are in the screenshot's pixels)`;
}

/** The windows, one line each, bottom to top, cut with a marker to fit `room` characters. */
export function windowList(windows: readonly DesktopWindow[], screen: Screen, room: number): string {
  if (windows.length === 0) return 'Windows: none visible';
  const lines = ['Windows (topmost last; focus one by id):'];
  let used = lines[0]!.length;
  for (const [index, window] of windows.entries()) {
    const at = toShot(screen, window.x, window.y);
    const size = toShot(screen, window.width, window.height);
    const line = `- "${cut(window.name)}" id ${window.id} at ${at.x},${at.y} size ${size.x}x${size.y}`;
    // Room is kept for the marker, so the list with it stays within `room`.
    if (used + line.length + 1 > room - 60) {
      lines.push(`[... cut: ${windows.length - index} more windows not shown ...]`);
      break;
    }
    lines.push(line);
    used += line.length + 1;
  }
  return lines.join('\n');
}

function cut(name: string): string {
  return name.length > maxNameChars ? `${name.slice(0, maxNameChars)}…` : name;
}

/** An error's first line. */
export function messageOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0]!.slice(0, 300);
}

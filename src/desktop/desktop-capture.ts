/**
 * What the desktop shows: the screen's size, the focused window, the visible windows and a
 * screenshot scaled so its long edge is at most 1,568 px (the largest the model providers use as
 * is; a larger image would be shrunk by them, and the model's coordinates would no longer match
 * the screen). Coordinates the model reads and gives are the screenshot's; {@link Screen} maps
 * them to the display's.
 */
import type { ImagePart } from '../llm/types.ts';
import { runX, type ProgramOutput, type XDisplay } from './x-programs.ts';

/** Most pixels on a screenshot's long edge. */
export const maxScreenshotEdge = 1568;

/** The display's size and the scale of its screenshots. */
export interface Screen {
  width: number;
  height: number;
  /** Screenshot pixels per screen pixel (1 when the screen fits, less when it is larger). */
  scale: number;
}

/** A visible top-level window. */
export interface DesktopWindow {
  /** The X window id, as xdotool takes it (decimal). */
  id: string;
  name: string;
  /** Position and size in screen pixels. */
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The screen and the window that has the keyboard focus (none when the focus is nowhere in particular). */
export interface FocusState {
  screen: Screen;
  focused?: { id: string; name: string };
}

/** The screen's size and the focused window, in one xdotool run. */
export async function focusState(display: XDisplay, signal?: AbortSignal): Promise<FocusState> {
  try {
    const { stdout } = await runX('xdotool', ['getdisplaygeometry', 'getwindowfocus', 'getwindowname', 'getwindowfocus'], display, signal);
    const [size = '', name = '', id = ''] = stdout.toString('utf8').split('\n');
    const screen = parseScreen(size, display);
    return /^\d+$/.test(id.trim()) ? { screen, focused: { id: id.trim(), name } } : { screen };
  } catch (error) {
    signal?.throwIfAborted();
    // Nothing has the focus, or the focused window went away meanwhile: the screen still is
    // (and when the display itself is the trouble, this says so).
    return { screen: await screenOf(display, signal).catch(() => Promise.reject(error)) };
  }
}

/** The display's size and screenshot scale. */
export async function screenOf(display: XDisplay, signal?: AbortSignal): Promise<Screen> {
  const { stdout } = await runX('xdotool', ['getdisplaygeometry'], display, signal);
  return parseScreen(stdout.toString('utf8'), display);
}

function parseScreen(size: string, display: XDisplay): Screen {
  const [width, height] = size.trim().split(/\s+/).map(Number);
  if (!width || !height) throw new Error(`xdotool gave no screen size for ${display.name}`);
  return { width, height, scale: Math.min(1, maxScreenshotEdge / Math.max(width, height)) };
}

/** The visible top-level windows that have a name, topmost last (the X stacking order). */
export async function listWindows(display: XDisplay, signal?: AbortSignal): Promise<DesktopWindow[]> {
  const [visible, tree] = await Promise.all([
    // With no visible named window xdotool exits 1 and prints nothing: that is an empty list.
    runX('xdotool', ['search', '--onlyvisible', '--name', '.'], display, signal).then(
      (out) => out.stdout.toString('utf8'),
      (error: unknown) => (signal?.aborted ? Promise.reject(error) : ''),
    ),
    windowTree(display, signal),
  ]);
  const ids = new Set(visible.split('\n').filter((line) => /^\d+$/.test(line.trim())).map((line) => line.trim()));
  return parseTree(tree.stdout.toString('utf8')).filter((window) => ids.has(window.id));
}

/**
 * `xwininfo -root -tree`, again when a window went away while it walked the tree (X answers
 * BadWindow or BadDrawable for it): windows come and go all the time, the list is wanted anyway.
 */
async function windowTree(display: XDisplay, signal?: AbortSignal): Promise<ProgramOutput> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await runX('xwininfo', ['-root', '-tree'], display, signal);
    } catch (error) {
      if (attempt >= 5 || !/Bad(Window|Drawable)|Bad Drawable|Bad Window/i.test(error instanceof Error ? error.message : '')) throw error;
    }
  }
}

/** One named window of `xwininfo -tree`: `0x400002 "Title": ("res" "Class")  945x1060+10+10  +10+10`. */
const treeLine = /^\s*0x([0-9a-f]+) "(.*)": \(.*\)\s+(\d+)x(\d+)[+-]-?\d+[+-]-?\d+\s+\+(-?\d+)\+(-?\d+)\s*$/;

/** The named windows of an `xwininfo -root -tree` listing, with absolute positions. */
export function parseTree(text: string): DesktopWindow[] {
  const windows: DesktopWindow[] = [];
  for (const line of text.split('\n')) {
    const match = treeLine.exec(line);
    if (!match) continue;
    const [, hex, name, width, height, x, y] = match as unknown as [string, string, string, string, string, string, string];
    windows.push({ id: String(Number.parseInt(hex, 16)), name, x: Number(x), y: Number(y), width: Number(width), height: Number(height) });
  }
  return windows;
}

/** A JPEG of the whole screen, scaled by `screen.scale`. */
export async function screenshot(display: XDisplay, screen: Screen, signal?: AbortSignal): Promise<ImagePart> {
  if (screen.scale === 1) {
    const { stdout } = await runX('maim', ['--format=jpg', '--quality=7', '--hidecursor'], display, signal);
    return jpeg(stdout);
  }
  // Scaled by sharp (libvips), from the best JPEG maim makes: cheaper to hand over than a PNG.
  const { stdout } = await runX('maim', ['--format=jpg', '--quality=10', '--hidecursor'], display, signal);
  const { default: sharp } = await import('sharp');
  const width = Math.round(screen.width * screen.scale);
  const height = Math.round(screen.height * screen.scale);
  return jpeg(await sharp(stdout).resize({ width, height, fit: 'fill' }).jpeg({ quality: 70 }).toBuffer());
}

function jpeg(data: Buffer): ImagePart {
  return { type: 'image', mediaType: 'image/jpeg', data: data.toString('base64') };
}

/** `x` and `y` in screenshot pixels as screen pixels, or an error message when off the screen. */
export function toScreen(screen: Screen, x: number, y: number): { x: number; y: number } | string {
  const shotWidth = Math.round(screen.width * screen.scale);
  const shotHeight = Math.round(screen.height * screen.scale);
  if (x < 0 || y < 0 || x >= shotWidth || y >= shotHeight) return `the point ${x},${y} is off the screen (0,0 to ${shotWidth - 1},${shotHeight - 1})`;
  return { x: Math.min(screen.width - 1, Math.round(x / screen.scale)), y: Math.min(screen.height - 1, Math.round(y / screen.scale)) };
}

/** `x` and `y` in screen pixels as screenshot pixels. */
export function toShot(screen: Screen, x: number, y: number): { x: number; y: number } {
  return { x: Math.round(x * screen.scale), y: Math.round(y * screen.scale) };
}

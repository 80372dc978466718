/**
 * The desktop tool's actions, each one or two xdotool runs. Points are in the screenshot's pixels
 * (see `desktop-capture.ts`) and mapped to the screen's here.
 */
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ImagePart } from '../llm/types.ts';
import type { TurnContext } from '../tools/tool.ts';
import { focusState, listWindows, screenOf, screenshot, toScreen, type DesktopWindow } from './desktop-capture.ts';
import { messageOf, screenLine } from './desktop-session.ts';
import { runX, type XDisplay } from './x-programs.ts';
import { privateFolderMode } from '../core/private-modes.ts';

/** The arguments an action reads (the tool's parameters). */
export interface DesktopArgs {
  action: string;
  x?: number;
  y?: number;
  button?: 'left' | 'middle' | 'right';
  double?: boolean;
  direction?: 'up' | 'down' | 'left' | 'right';
  amount?: number;
  text?: string;
  keys?: string;
  window?: string;
  send?: boolean;
}

/** What an action did: its line, an image for the model (screenshot), and whether it failed. */
export interface DesktopOutcome {
  text: string;
  image?: ImagePart;
  isError?: boolean;
}

/** A mistake in the call (a point off the screen, an unknown window): said to the model as is. */
export class DesktopActionError extends Error {
  override readonly name = 'DesktopActionError';
}

const buttons = { left: '1', middle: '2', right: '3' } as const;
const wheel = { up: '4', down: '5', left: '6', right: '7' } as const;

/** Milliseconds between typed characters: fast, yet slow enough for programs that read keys one by one. */
const typeDelayMs = 5;

/** Runs one action on `display`. `files` is where a screenshot sent to the chat is written first. */
export async function runDesktopAction(display: XDisplay, args: DesktopArgs, files: string, turn: TurnContext | undefined, signal: AbortSignal): Promise<DesktopOutcome> {
  switch (args.action) {
    case 'screenshot':
      return takeScreenshot(display, args.send === true, files, turn, signal);
    case 'move': {
      const point = await pointOf(display, args, signal);
      await runX('xdotool', ['mousemove', point.x, point.y], display, signal);
      return { text: `Moved the pointer to ${args.x},${args.y}.` };
    }
    case 'click': {
      const button = buttons[args.button ?? 'left'];
      // xdotool waits 100 ms after every click unless told otherwise; a double click needs its two
      // clicks well inside the double-click interval, and nothing needs the wait after the last.
      const click = ['click', '--delay', args.double ? '40' : '0', ...(args.double ? ['--repeat', '2'] : []), button];
      const at = args.x === undefined && args.y === undefined ? [] : await pointOf(display, args, signal).then((point) => ['mousemove', point.x, point.y]);
      await runX('xdotool', [...at, ...click], display, signal);
      const what = `${args.double ? 'Double-clicked' : 'Clicked'}${args.button && args.button !== 'left' ? ` the ${args.button} button` : ''}`;
      return { text: at.length > 0 ? `${what} at ${args.x},${args.y}.` : `${what} where the pointer is.` };
    }
    case 'scroll': {
      const direction = args.direction ?? 'down';
      const at = args.x === undefined && args.y === undefined ? [] : await pointOf(display, args, signal).then((point) => ['mousemove', point.x, point.y]);
      const amount = args.amount ?? 3;
      await runX('xdotool', [...at, 'click', '--delay', '10', '--repeat', String(amount), wheel[direction]], display, signal);
      return { text: `Scrolled ${direction} ${amount} step${amount === 1 ? '' : 's'}.` };
    }
    case 'type': {
      const text = required(args.text, 'type needs text');
      // Long text takes a while at a few milliseconds a character: the program gets time for it.
      await runX('xdotool', ['type', '--delay', String(typeDelayMs), '--', text], display, signal, 10_000 + text.length * typeDelayMs * 3);
      return { text: `Typed ${text.length} character${text.length === 1 ? '' : 's'}.` };
    }
    case 'key': {
      const keys = parseKeys(required(args.keys, 'key needs keys, e.g. "ctrl+s" or "Tab Tab Return"'));
      await runX('xdotool', ['key', '--clearmodifiers', '--', ...keys], display, signal);
      return { text: `Pressed ${keys.join(' ')}.` };
    }
    case 'windows': {
      const { screen } = await focusState(display, signal);
      const windows = await listWindows(display, signal);
      const lines = windows.map((window) => `- "${window.name}" id ${window.id}`);
      return { text: [screenLine(screen), windows.length > 0 ? `Windows (topmost last):\n${lines.join('\n')}` : 'No window is visible.'].join('\n') };
    }
    case 'focus': {
      const window = await findWindow(display, required(args.window, 'focus needs window: an id from the window list, or part of a name'), signal);
      await focusWindow(display, window.id, signal);
      return { text: `Focused "${window.name}".` };
    }
    default:
      throw new DesktopActionError(`unknown action "${args.action}"`);
  }
}

/** `Now: focused "Name"`: what has the keyboard after an action. */
export async function focusedNow(display: XDisplay, signal: AbortSignal): Promise<string> {
  try {
    const { focused } = await focusState(display, signal);
    return focused ? `Now: focused "${focused.name}" (id ${focused.id}).` : 'Now: no window has the focus.';
  } catch (error) {
    return `Now: unknown (${messageOf(error)}).`;
  }
}

/** The window `spec` names: its id, or a part of its name that only it has. */
export async function findWindow(display: XDisplay, spec: string, signal?: AbortSignal): Promise<DesktopWindow> {
  const windows = await listWindows(display, signal);
  const byId = windows.find((window) => window.id === spec.trim());
  if (byId) return byId;
  const needle = spec.trim().toLowerCase();
  const named = windows.filter((window) => window.name.toLowerCase().includes(needle));
  if (named.length === 1) return named[0]!;
  const known = windows.map((window) => `"${window.name}" (${window.id})`).join(', ') || 'none';
  if (named.length > 1) throw new DesktopActionError(`"${spec}" names ${named.length} windows: give the id of one (${known})`);
  throw new DesktopActionError(`no visible window is "${spec}" (visible: ${known})`);
}

/** The topmost visible window containing the screen point, if any. */
export function windowAt(windows: readonly DesktopWindow[], x: number, y: number): DesktopWindow | undefined {
  return windows.findLast((window) => x >= window.x && y >= window.y && x < window.x + window.width && y < window.y + window.height);
}

/**
 * Raises `id` and gives it the focus: through the window manager where there is one
 * (`_NET_ACTIVE_WINDOW`), directly where there is none (a bare X server such as Xvfb).
 */
async function focusWindow(display: XDisplay, id: string, signal: AbortSignal): Promise<void> {
  try {
    await runX('xdotool', ['windowactivate', '--sync', id], display, signal);
  } catch (error) {
    if (!/_NET_ACTIVE_WINDOW/.test(messageOf(error))) throw error;
    await runX('xdotool', ['windowraise', id, 'windowfocus', '--sync', id], display, signal);
  }
}

async function takeScreenshot(display: XDisplay, send: boolean, files: string, turn: TurnContext | undefined, signal: AbortSignal): Promise<DesktopOutcome> {
  const screen = await screenOf(display, signal);
  const image = await screenshot(display, screen, signal);
  const text = `Screenshot of the screen. ${screenLine(screen)}`;
  if (!send) return { text, image };
  await mkdir(files, { recursive: true, mode: privateFolderMode });
  // What people get is the screen at its own size, as a PNG.
  const path = join(files, `desktop-${new Date().toISOString().replace(/[:.]/g, '-')}.png`);
  await runX('maim', ['--format=png', '--hidecursor', path], display, signal);
  if (!turn?.attachFile) return { text: `${text}\nSaved to ${path} (there is no chat here to send it to).`, image };
  try {
    return { text: `${text}\n${await turn.attachFile(path, 'desktop.png')}`, image };
  } catch (error) {
    return { text: `${text}\nSaved to ${path}, but not sent: ${messageOf(error)}`, image, isError: true };
  }
}

/** The call's point on the screen, as xdotool arguments. */
async function pointOf(display: XDisplay, args: DesktopArgs, signal: AbortSignal): Promise<{ x: string; y: string }> {
  if (args.x === undefined || args.y === undefined) throw new DesktopActionError(`${args.action} needs both x and y (in the screenshot's pixels)`);
  const point = toScreen(await screenOf(display, signal), args.x, args.y);
  if (typeof point === 'string') throw new DesktopActionError(point);
  return { x: String(point.x), y: String(point.y) };
}

function required<T>(value: T | undefined, message: string): T {
  if (value === undefined) throw new DesktopActionError(message);
  return value;
}

/** Common names for keys, as X calls them. */
const keyNames: Record<string, string> = {
  enter: 'Return',
  return: 'Return',
  esc: 'Escape',
  escape: 'Escape',
  ctrl: 'ctrl',
  control: 'ctrl',
  alt: 'alt',
  option: 'alt',
  shift: 'shift',
  super: 'super',
  win: 'super',
  windows: 'super',
  meta: 'super',
  cmd: 'super',
  command: 'super',
  backspace: 'BackSpace',
  delete: 'Delete',
  del: 'Delete',
  tab: 'Tab',
  space: 'space',
  up: 'Up',
  down: 'Down',
  left: 'Left',
  right: 'Right',
  home: 'Home',
  end: 'End',
  pageup: 'Prior',
  pagedown: 'Next',
  insert: 'Insert',
};

const modifiers = new Set(['ctrl', 'alt', 'shift', 'super']);

/**
 * `"Ctrl+S  Tab Enter"` as xdotool key arguments (`ctrl+s Tab Return`): common names mapped to X
 * key names, a letter in a combination lower-cased (`ctrl+S` would otherwise add shift). Anything
 * else must be an X key name (`F5`, `KP_Enter`).
 */
export function parseKeys(spec: string): string[] {
  const combos = spec.trim().split(/\s+/).filter(Boolean);
  if (combos.length === 0 || combos.length > 20) throw new DesktopActionError('keys: give 1 to 20 keys or combinations, e.g. "ctrl+s" or "Tab Tab Return"');
  return combos.map((combo) => {
    const parts = combo.split('+');
    if (parts.some((part) => !/^[A-Za-z0-9_]{1,30}$/.test(part))) throw new DesktopActionError(`"${combo}" is not a key or combination (e.g. "ctrl+shift+t", "F5", "Return")`);
    const named = parts.map((part) => keyNames[part.toLowerCase()] ?? part);
    const combined = named.length > 1 && named.slice(0, -1).every((part) => modifiers.has(part));
    return named.map((part, index) => (combined && index === named.length - 1 && /^[A-Za-z]$/.test(part) ? part.toLowerCase() : part)).join('+');
  });
}

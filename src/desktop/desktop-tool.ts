/**
 * The `desktop` tool: the agent drives this machine's X display (screenshot, pointer, keyboard,
 * windows). Results are one short line; the screen's state rides along with each model call
 * while the desktop is in use (see `desktop-session.ts`). Who gets it: the `desktop` tool group
 * (the owner's seats, or a grant that names it: `"all"` does not), and only where operator.json
 * turns the desktop on and there is a display.
 */
import * as z from 'zod';
import { errorResult } from '../tools/builtin/results.ts';
import { defineTool, type Tool, type ToolContext, type ToolOutput } from '../tools/tool.ts';
import { focusState, listWindows, screenOf, toScreen } from './desktop-capture.ts';
import { DesktopActionError, findWindow, focusedNow, runDesktopAction, windowAt, type DesktopArgs } from './desktop-actions.ts';
import { DesktopSession, messageOf } from './desktop-session.ts';
import { DesktopError, runX } from './x-programs.ts';

/** The actions, in the order the model reads them. */
export const desktopActions = ['screenshot', 'move', 'click', 'scroll', 'type', 'key', 'windows', 'focus', 'close'] as const;

const coordinate = z.int().min(0).max(100_000);

const parameters = z.object({
  action: z.enum(desktopActions),
  x: coordinate.optional().describe("move, click, scroll: the point's x, in the screenshot's pixels."),
  y: coordinate.optional().describe("move, click, scroll: the point's y, in the screenshot's pixels."),
  button: z.enum(['left', 'middle', 'right']).optional().describe('click: the mouse button (default left).'),
  double: z.boolean().optional().describe('click: a double click.'),
  direction: z.enum(['up', 'down', 'left', 'right']).optional().describe('scroll: which way (default down).'),
  amount: z.int().min(1).max(30).optional().describe('scroll: how many wheel steps (default 3).'),
  text: z.string().min(1).max(5_000).optional().describe('type: the text to type into the focused window.'),
  keys: z.string().min(1).max(300).optional().describe('key: keys or combinations separated by spaces, e.g. "ctrl+s", "alt+Tab", "Tab Tab Return".'),
  window: z.string().min(1).max(200).optional().describe('focus: a window id from the window list, or part of its name.'),
  send: z.boolean().optional().describe('screenshot: also send the image to the chat.'),
});

const description =
  "Drive this machine's desktop (its X display): screenshot; move, click (button, double) and scroll at a point x,y " +
  "given in the screenshot's pixels (click and scroll without a point act where the pointer is); type text into the " +
  'focused window; key (combinations like "ctrl+s", "alt+Tab", "Return"); windows (list them); focus (a window by id ' +
  'or name); close (stop showing the desktop). Once you use it, every message you get shows the focused window, the ' +
  'visible windows and (if enabled) a screenshot. Results say what was done, not what the screen shows.';

/** Creates the `desktop` tool; the desktop itself is the conversation's (`context.surfaces.desktop`). */
export function createDesktopTool(): Tool<typeof parameters> {
  return defineTool({
    name: 'desktop',
    machine: 'desktop',
    description,
    parameters,
    timeoutMs: 120_000,
    async execute(args, context): Promise<ToolOutput> {
      const session = sessionOf(context);
      if (!session) return errorResult('This agent has no desktop: a sub-agent never gets the desktop of the conversation that started it.');
      if (args.action === 'close') {
        const open = session.isOpen;
        await session.close();
        return { content: open ? 'Stopped showing the desktop (its windows stay as they are).' : 'The desktop was not in use.' };
      }
      try {
        const outcome = await session.use(async (display) => {
          const done = await runDesktopAction(display, args as DesktopArgs, session.files, context.turn, context.signal);
          return args.action === 'windows' || args.action === 'screenshot' ? done : { ...done, text: `${done.text}\n${await focusedNow(display, context.signal)}` };
        });
        return { content: outcome.image ? [{ type: 'text', text: outcome.text }, outcome.image] : outcome.text, isError: outcome.isError };
      } catch (error) {
        context.signal.throwIfAborted();
        if (error instanceof DesktopActionError || error instanceof DesktopError) return errorResult(error.message);
        return errorResult(`${args.action} failed: ${messageOf(error)}`);
      }
    },
    async inspect(args, context) {
      // Always the key, so nothing the model put in its arguments under this name survives.
      const session = sessionOf(context);
      if (!session) return { target: '' };
      return { target: await targetWindow(session, args, context.signal).catch(() => '') };
    },
  });
}

/**
 * The name of the window an action will act on, for guardrails: the one under the point for a
 * click or scroll at a point, the one named for focus, the focused one for keys and text.
 */
async function targetWindow(session: DesktopSession, args: DesktopArgs, signal: AbortSignal): Promise<string> {
  const { display } = session;
  switch (args.action) {
    case 'focus':
      return args.window ? (await findWindow(display, args.window, signal)).name : '';
    case 'click':
    case 'scroll':
    case 'type':
    case 'key': {
      if (args.action === 'type' || args.action === 'key') return (await focusState(display, signal)).focused?.name ?? '';
      const point = args.x !== undefined && args.y !== undefined ? toScreen(await screenOf(display, signal), args.x, args.y) : await pointerOf(display, signal);
      if (typeof point === 'string') return '';
      return windowAt(await listWindows(display, signal), point.x, point.y)?.name ?? '';
    }
    default:
      return '';
  }
}

/** Where the pointer is, in screen pixels. */
async function pointerOf(display: DesktopSession['display'], signal: AbortSignal): Promise<{ x: number; y: number }> {
  const { stdout } = await runX('xdotool', ['getmouselocation', '--shell'], display, signal);
  const value = (name: string) => Number(new RegExp(`^${name}=(\\d+)$`, 'm').exec(stdout.toString('utf8'))?.[1] ?? Number.NaN);
  return { x: value('X'), y: value('Y') };
}

function sessionOf(context: ToolContext): DesktopSession | undefined {
  const surface = context.surfaces?.desktop;
  return surface instanceof DesktopSession ? surface : undefined;
}

/**
 * The `browser` tool: the agent drives its conversation's own browser (a real chromium) by the
 * refs of the page's aria snapshot. Each result is one short line of what happened and where the
 * tab is now, never the page itself: the page's state rides along with each model call instead
 * (see `browser-state.ts`). Who gets it: the `browser` tool group (the owner's seats, or a grant);
 * where chromium cannot be sandboxed here, the owner's seats alone.
 */
import type { Page } from 'playwright-core';
import * as z from 'zod';
import { errorResult } from '../tools/builtin/results.ts';
import { isOwnerTurn } from '../tools/resources/owner-turn.ts';
import { defineTool, type Tool, type ToolContext, type ToolOutput } from '../tools/tool.ts';
import { BrowserUnavailableError } from './browser-pool.ts';
import { BrowserSession } from './browser-session.ts';
import { firstLine } from './browser-state.ts';
import { ActionError, runAction, whereNow, type ActionArgs } from './browser-actions.ts';
import { describeRef } from './page-snapshot.ts';

/** The actions that may change something behind a page (submit a form, send a message). */
const actingActions: ReadonlySet<string> = new Set(['click', 'type', 'press', 'select']);

/** The actions, in the order the model reads them. */
export const browserActions = [
  'open',
  'navigate',
  'click',
  'type',
  'press',
  'select',
  'hover',
  'scroll',
  'back',
  'forward',
  'tab_list',
  'tab_new',
  'tab_switch',
  'tab_close',
  'wait_for',
  'screenshot',
  'snapshot',
  'close',
] as const;

const parameters = z.object({
  action: z.enum(browserActions),
  url: z.string().min(1).max(4_000).optional().describe('open, navigate, tab_new: the address.'),
  ref: z.string().regex(/^[a-z]*\d+[a-z0-9]*$/i, 'expected a ref from the snapshot, e.g. e12').optional().describe('The element, by its ref in the snapshot (e.g. "e12").'),
  text: z.string().max(20_000).optional().describe('type: the text to enter (replaces what is there); wait_for: text to wait for.'),
  key: z.string().min(1).max(60).optional().describe('press: a key or combination, e.g. "Enter", "Escape", "Control+A".'),
  values: z.array(z.string().max(1_000)).max(50).optional().describe('select: the option values or labels to choose.'),
  submit: z.boolean().optional().describe('type: press Enter afterwards.'),
  direction: z.enum(['up', 'down']).optional().describe('scroll without ref: one screen up or down (default down).'),
  tab: z.int().min(1).max(100).optional().describe('tab_switch, tab_close: the tab number from tab_list.'),
  timeout_seconds: z.number().min(0.5).max(60).optional().describe('How long to wait (navigate: 30, others: 10).'),
  send: z.boolean().optional().describe('screenshot: also send the image to the chat.'),
});

const description =
  "Drive this conversation's own web browser (a real chromium). While it is open, every message you get shows its tabs " +
  '(and the active tab as an aria snapshot whose elements carry refs like [ref=e12]); act on elements by ref: click, ' +
  'type (fills a field), press, select, hover, scroll (a ref into view, or a screen up/down), wait_for (text or ref). ' +
  'Also: open/navigate (url), back, forward, tab_list, tab_new, tab_switch/tab_close (tab), snapshot (the snapshot now), ' +
  "screenshot (send: true also sends it to the chat), close. Refs are valid until the page changes; results say what happened, not the page's content.";

/** Creates the `browser` tool; the browser itself is the conversation's (`context.surfaces.browser`). */
export function createBrowserTool(): Tool<typeof parameters> {
  return defineTool({
    name: 'browser',
    machine: 'browser',
    // A click, typing, a key or a choice may submit a form; looking and moving around does not.
    acts: (args) => typeof args['action'] === 'string' && actingActions.has(args['action']),
    // Whatever page is open may say anything, and its state rides along with each model call.
    untrustedSource: (args) => (args['action'] === 'navigate' || args['action'] === 'open') && typeof args['url'] === 'string' ? `a page in the browser (${args['url'].slice(0, 200)})` : 'a page in the browser',
    description,
    parameters,
    timeoutMs: 120_000,
    async execute(args, context): Promise<ToolOutput> {
      const session = sessionOf(context);
      if (!session) return errorResult('This agent has no browser: a sub-agent never gets the browser of the conversation that started it.');
      if (session.unconfined && !isOwnerTurn(context.turn)) return errorResult(unconfinedRefusal);
      if (args.action === 'close') {
        const open = session.isOpen;
        await session.close();
        return { content: open ? 'Closed the browser.' : 'The browser was not open.' };
      }
      try {
        const { value, notes } = await session.use(async (tabs) => {
          const outcome = await runAction(session, tabs, args as ActionArgs, context.turn);
          const active = session.current()?.active;
          return { outcome, where: active && !active.isClosed() ? await whereNow(active) : 'Now: no tab is open.' };
        });
        const text = [...notes, value.outcome.text, value.where].join('\n');
        return {
          content: value.outcome.image ? [{ type: 'text', text }, value.outcome.image] : text,
          isError: value.outcome.isError,
        };
      } catch (error) {
        if (error instanceof ActionError || error instanceof BrowserUnavailableError) return errorResult(error.message);
        return errorResult(`${args.action} failed: ${firstLine(error)}`);
      }
    },
    async inspect(args, context) {
      // Always both keys, so nothing the model put in its arguments under these names survives.
      const active = sessionOf(context)?.current()?.active;
      if (!active) return { page: '', target: '' };
      let target = args.ref ? (describeRef(active, args.ref) ?? '') : '';
      // A key pressed without a ref goes to whatever has the focus: that is what it acts on.
      if (!args.ref && args.action === 'press') target = await focusedElement(active);
      return { page: active.url(), target };
    },
  });
}

/**
 * Said to a seat other than the owner's where chromium runs without a sandbox: a page that found
 * a renderer bug would run as the gateway's user.
 */
const unconfinedRefusal =
  "The browser is not available in this conversation: chromium cannot be sandboxed on this machine (operator runs as root without bubblewrap, or user namespaces are off), so it is kept to the owner's own conversations. An admin can install bubblewrap (apt-get install bubblewrap) to offer it here.";

/** The focused element as `button "Pay now"` (tag and its label or text), or '' when none. */
async function focusedElement(page: Page): Promise<string> {
  const script =
    "(() => { const e = document.activeElement; if (!e || e === document.body) return ''; const label = e.getAttribute('aria-label') || e.innerText || e.value || ''; return e.tagName.toLowerCase() + ' \"' + String(label).trim().slice(0, 80) + '\"'; })()";
  return page.evaluate(script).then(String, () => '');
}

function sessionOf(context: ToolContext): BrowserSession | undefined {
  const surface = context.surfaces?.browser;
  return surface instanceof BrowserSession ? surface : undefined;
}

/**
 * The `desktop` tool on a real X server (Xvfb, 2000x1250, so screenshots are scaled to 1568 px)
 * with real windows (a chromium app window, an xmessage box): screenshot, click, type, keys,
 * scroll, windows and focus; points mapped from the screenshot to the screen; the live state and
 * its cap; refusals and clear errors (no display, a program missing, a point off the screen); a
 * screenshot sent to the chat; a conversation without the desktop (a child).
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listWindows } from '../../src/desktop/desktop-capture.ts';
import { parseKeys } from '../../src/desktop/desktop-actions.ts';
import { captureDesktopState, DesktopSession, maxStateChars, windowList } from '../../src/desktop/desktop-session.ts';
import { defaultDesktopSettings, type DesktopSettings } from '../../src/desktop/desktop-settings.ts';
import { createDesktopTool } from '../../src/desktop/desktop-tool.ts';
import { missingPrograms, type XDisplay } from '../../src/desktop/x-programs.ts';
import type { ImagePart } from '../../src/llm/types.ts';
import type { ToolOutput, TurnContext } from '../../src/tools/tool.ts';
import { callTool, makeTempDir, textOf } from '../tools/tool-harness.ts';
import { whenDesktopInstalled } from './needs-desktop.ts';
import { focusedName, startDisplay, type TestDisplay } from './x-display.ts';

const tool = createDesktopTool();

/** A session on `display` with the settings turned on. */
async function sessionOn(display: XDisplay, overrides: Partial<DesktopSettings> = {}): Promise<DesktopSession> {
  return new DesktopSession({ settings: { ...defaultDesktopSettings, enabled: true, ...overrides }, display, files: join(await makeTempDir(), 'downloads') });
}

/** Calls the tool on `session`, as a conversation's agent would. */
function act(session: DesktopSession | undefined, args: Record<string, unknown>, turn?: TurnContext): Promise<ToolOutput> {
  return callTool(tool, args, { cwd: process.cwd(), surfaces: session ? { desktop: session } : undefined, turn });
}

function imageOf(output: ToolOutput): ImagePart {
  const image = typeof output.content === 'string' ? undefined : output.content.find((part) => part.type === 'image');
  if (!image || image.type !== 'image') throw new Error(`no image in ${textOf(output)}`);
  return image;
}

whenDesktopInstalled('desktop tool', 'the desktop tool tests', () => {
  describe('desktop tool', () => {
    let x: TestDisplay;
    let session: DesktopSession;

    beforeAll(async () => {
      x = await startDisplay(2000, 1250);
      await x.openPage();
      await x.openMessage('notes');
      session = await sessionOn(x.display);
    }, 60_000);
    afterAll(async () => {
      await x?.close();
    });

    // The screen is 2000x1250, shown as 1568x980: a screen point is 0.784 of a screenshot point.
    const shot = (value: number) => Math.round(value * 0.784);

    it('takes a screenshot scaled to 1568 px on the long edge, and says how points map', async () => {
      const output = await act(session, { action: 'screenshot' });
      expect(textOf(output)).toContain('Screen: 2000x1250, shown as 1568x980');
      const meta = await sharp(Buffer.from(imageOf(output).data!, 'base64')).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['jpeg', 1568, 980]);
    });

    it('clicks at a point given in screenshot pixels, which lands on the screen point it shows', async () => {
      const clicked = await act(session, { action: 'click', x: shot(150), y: shot(100) });
      // The page renames its window a moment after the click: either name may be the one seen.
      expect(textOf(clicked)).toMatch(new RegExp(`^Clicked at ${shot(150)},${shot(100)}\\.\nNow: focused "(Desk ready|Clicked 1)" \\(id \\d+\\)\\.$`));
      expect(await x.waitForWindow('Clicked 1')).toBe('Clicked 1');
      await act(session, { action: 'click', x: shot(150), y: shot(100), double: true });
      expect(await x.waitForWindow('Clicked 3')).toBe('Clicked 3');
    });

    it('types into the focused window and presses key combinations', async () => {
      await act(session, { action: 'click', x: shot(100), y: shot(320) });
      const typed = await act(session, { action: 'type', text: 'hello desk' });
      expect(textOf(typed)).toContain('Typed 10 characters.');
      expect(await x.waitForWindow('Typed hello desk')).toBe('Typed hello desk');
      const pressed = await act(session, { action: 'key', keys: 'Ctrl+B' });
      expect(textOf(pressed)).toContain('Pressed ctrl+b.');
      expect(await x.waitForWindow('Pressed ctrl+b')).toBe('Pressed ctrl+b');
    });

    it('moves the pointer and scrolls', async () => {
      expect(textOf(await act(session, { action: 'move', x: 10, y: 10 }))).toContain('Moved the pointer to 10,10.');
      expect(textOf(await act(session, { action: 'scroll', direction: 'down', amount: 2 }))).toContain('Scrolled down 2 steps.');
    });

    it('lists the windows and focuses one by name or by id', async () => {
      const listed = textOf(await act(session, { action: 'windows' }));
      expect(listed).toMatch(/- "notes" id \d+/);
      const pageId = /- "Pressed ctrl\+b" id (\d+)/.exec(listed)?.[1];
      expect(pageId).toBeDefined();
      expect(textOf(await act(session, { action: 'focus', window: 'NOTES' }))).toContain('Focused "notes".');
      expect(await focusedName(x.display)).toBe('notes');
      expect(textOf(await act(session, { action: 'focus', window: pageId }))).toContain('Focused "Pressed ctrl+b".');
      expect(await focusedName(x.display)).toBe('Pressed ctrl+b');
    });

    it('refuses plainly: a point off the screen, a missing point, an unknown window, a bad key', async () => {
      const off = await act(session, { action: 'click', x: 1568, y: 10 });
      expect(off.isError).toBe(true);
      expect(textOf(off)).toContain('is off the screen (0,0 to 1567,979)');
      expect(textOf(await act(session, { action: 'move', x: 5 }))).toContain('move needs both x and y');
      expect(textOf(await act(session, { action: 'focus', window: 'no such window' }))).toMatch(/no visible window is "no such window" \(visible: .*"notes"/);
      expect(textOf(await act(session, { action: 'key', keys: 'ctrl+$(reboot)' }))).toContain('is not a key or combination');
      expect(() => parseKeys('Enter ctrl+shift+T cmd+space F5')).not.toThrow();
      expect(parseKeys('Enter ctrl+shift+T cmd+space F5')).toEqual(['Return', 'ctrl+shift+t', 'super+space', 'F5']);
    });

    it('is in use from its first action until close; its state names the focused window and every visible one', async () => {
      const fresh = await sessionOn(x.display);
      expect(fresh.isOpen).toBe(false);
      expect(await fresh.liveState(new AbortController().signal)).toBeUndefined();
      await act(fresh, { action: 'focus', window: 'notes' });
      expect(fresh.isOpen).toBe(true);
      const state = (await fresh.liveState(new AbortController().signal))!;
      expect(state.text).toContain('<desktop_state note="the desktop (display');
      expect(state.text).toContain('Focused window: "notes"');
      expect(state.text).toMatch(/- "Pressed ctrl\+b" id \d+ at 0,0 size/);
      expect(state.text).toMatch(/- "notes" id \d+ at 941,549 /);
      expect(state.images).toHaveLength(1);
      expect(textOf(await act(fresh, { action: 'close' }))).toContain('Stopped showing the desktop');
      expect(await fresh.liveState(new AbortController().signal)).toBeUndefined();
      const quiet = await sessionOn(x.display, { useScreenshot: false });
      await act(quiet, { action: 'windows' });
      expect((await quiet.liveState(new AbortController().signal))!.images).toEqual([]);
    });

    it('stops showing the state once idle longer than the timeout', async () => {
      let now = 1_000_000;
      const idle = new DesktopSession({ settings: { ...defaultDesktopSettings, enabled: true, idleTimeoutSeconds: 60 }, display: x.display, files: await makeTempDir(), now: () => now });
      await act(idle, { action: 'windows' });
      now += 59_000;
      expect(idle.isOpen).toBe(true);
      now += 2_000;
      expect(idle.isOpen).toBe(false);
    });

    it('sends a screenshot to the chat at the screen\'s own size when asked', async () => {
      const sent: string[] = [];
      const turn = { attachFile: async (path: string, name?: string) => (sent.push(path), `${name} will be sent with the reply.`) } as unknown as TurnContext;
      const output = await act(session, { action: 'screenshot', send: true }, turn);
      expect(textOf(output)).toContain('desktop.png will be sent with the reply.');
      expect(existsSync(sent[0]!)).toBe(true);
      const meta = await sharp(sent[0]!).metadata();
      expect([meta.format, meta.width, meta.height]).toEqual(['png', 2000, 1250]);
    });

    it('a sub-agent has no desktop', async () => {
      const output = await act(undefined, { action: 'screenshot' });
      expect(output.isError).toBe(true);
      expect(textOf(output)).toContain('a sub-agent never gets the desktop');
    });

    it('gives guardrails the window an action lands on, whatever the model wrote', async () => {
      const inspect = (args: Record<string, unknown>) =>
        tool.inspect!(tool.parameters.parse(args), { signal: new AbortController().signal, toolCallId: 'c', cwd: '.', surfaces: { desktop: session } });
      await act(session, { action: 'focus', window: 'notes' });
      expect(await inspect({ action: 'type', text: 'x', target: 'forged' })).toEqual({ target: 'notes' });
      expect(await inspect({ action: 'click', x: shot(150), y: shot(100) })).toEqual({ target: 'Pressed ctrl+b' });
      expect(await inspect({ action: 'click', x: shot(1300), y: shot(720) })).toEqual({ target: 'notes' });
      expect(await inspect({ action: 'focus', window: 'ctrl+b' })).toEqual({ target: 'Pressed ctrl+b' });
      expect(await inspect({ action: 'screenshot' })).toEqual({ target: '' });
    });
  });

  describe('desktop tool without a display or its programs', () => {
    it('says the display cannot be opened, and shows nothing for it', async () => {
      const session = await sessionOn({ name: ':1999' });
      const output = await act(session, { action: 'screenshot' });
      expect(output.isError).toBe(true);
      expect(textOf(output)).toBe('Error: the display :1999 cannot be opened: is an X server running there?');
      expect(session.isOpen).toBe(false);
      const state = await captureDesktopState({ name: ':1999' }, true, new AbortController().signal);
      expect(state.text).toContain('(the desktop cannot be seen: the display :1999 cannot be opened');
    });

    it('names the program that is missing and the package that brings it', async () => {
      const empty = await makeTempDir();
      const output = await act(await sessionOn({ name: ':1999', searchPath: empty }), { action: 'key', keys: 'Return' });
      expect(textOf(output)).toBe('Error: xdotool is not installed on this machine (apt-get install xdotool)');
      expect(missingPrograms(empty)).toEqual(['xdotool', 'maim', 'xwininfo']);
      expect(missingPrograms()).toEqual([]);
    });

    it('lists the windows again when one went away while xwininfo walked the tree', async () => {
      // A stand-in xwininfo that fails as X does for a vanished window, then answers.
      const bin = await makeTempDir();
      const count = join(bin, 'count');
      writeFileSync(
        join(bin, 'xwininfo'),
        `#!/bin/sh\necho x >> ${count}\nif [ $(/usr/bin/wc -l < ${count}) -lt 3 ]; then echo 'X Error: 9: Bad Drawable: 0x800001' >&2; exit 1; fi\necho '     0x400002 "Page": ("app" "App")  800x600+0+0  +0+0'\n`,
        { mode: 0o755 },
      );
      expect(await listWindows({ name: ':1999', searchPath: bin })).toEqual([]);
      expect(readFileSync(count, 'utf8')).toBe('x\nx\nx\n');
    });

    it('caps the window list with a visible marker, so the state stays under its limit', () => {
      const windows = Array.from({ length: 2_000 }, (_, index) => ({ id: String(index + 1), name: `window ${index} ${'x'.repeat(300)}`, x: 0, y: 0, width: 10, height: 10 }));
      const list = windowList(windows, { width: 1000, height: 800, scale: 1 }, maxStateChars - 500);
      expect(list.length).toBeLessThanOrEqual(maxStateChars - 500);
      expect(list).toMatch(/\[\.\.\. cut: \d+ more windows not shown \.\.\.\]$/);
      // Names are cut too, at 200 characters.
      expect(list).toContain(`"window 0 ${'x'.repeat(191)}…"`);
    });
  });
});

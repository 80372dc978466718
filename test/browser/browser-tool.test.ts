/**
 * The `browser` tool on Debian's chromium against local pages: navigate, act by ref, forms, tabs,
 * waits, a page that never loads, downloads, refusals, a crashed browser relaunched, idle close,
 * the context cap, and an agent without a browser (a child).
 *
 * One pool serves the file, so chromium starts once rather than for every test: each test opens
 * conversations of its own (a context each, as in the gateway) and closes them after. The tests
 * of a crash and of idle close end that browser on purpose; the pool starts it again, which is
 * what they check.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BrowserPool } from '../../src/browser/browser-pool.ts';
import type { BrowserSession } from '../../src/browser/browser-session.ts';
import { takeSnapshot } from '../../src/browser/page-snapshot.ts';
import { whenChromiumInstalled } from '../helpers/chromium.ts';
import { makeTempDir } from '../tools/tool-harness.ts';
import { browse, chromiumChildren, refOf, testSettings, textOf } from './browser-harness.ts';
import { startPageServer, type PageServer } from './page-server.ts';

whenChromiumInstalled('browser tool', 'the browser tool tests', () => {
  describe('browser tool', () => {
    let pages: PageServer;
    let pool: BrowserPool;
    let folder: string;
    /** Conversations the running test opened, closed after it. */
    const opened: BrowserSession[] = [];
    /** Pools a test made for itself, closed after it. */
    const ownPools: BrowserPool[] = [];
    let conversations = 0;

    beforeAll(async () => {
      pages = await startPageServer();
      pool = new BrowserPool();
    });
    afterAll(async () => {
      await pool?.closeAll();
      await pages?.close();
    });
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((session) => session.close()));
      await Promise.all(ownPools.splice(0).map((own) => own.closeAll()));
    });

    /** A new conversation's session in `from` (the file's pool), downloading into a new folder. */
    const open = async (settings = testSettings(), from = pool) => {
      folder = await makeTempDir();
      const session = from.session(`telegram:dm:${++conversations}`, settings, join(folder, 'downloads'));
      opened.push(session);
      return session;
    };

    it('navigates, then clicks by the ref of the aria snapshot; results are short', async () => {
      const session = await open();
      const opened = textOf(await browse(session, { action: 'navigate', url: `${pages.url}/` }));
      expect(opened).toContain(`Now: "Home" ${pages.url}/`);
      const snapshot = textOf(await browse(session, { action: 'snapshot' }));
      expect(snapshot).toContain('button "Pay now"');
      const clicked = await browse(session, { action: 'click', ref: refOf(snapshot, 'button "Pay now"') });
      expect(clicked.isError).toBeFalsy();
      expect(textOf(clicked)).toMatch(/^Clicked button "Pay now"\.\nNow: "Paid" /);
      expect(textOf(clicked).length).toBeLessThan(300);
    });

    it("opens a conversation's context without the address bar's popups, which chromium would build as pages", async () => {
      const session = await open();
      await browse(session, { action: 'navigate', url: `${pages.url}/` });
      const cdp = await session.current()!.active.context().browser()!.newBrowserCDPSession();
      // Every target, the browser's own pages (`browser_ui`) included, which the default filter leaves out.
      const { targetInfos } = (await cdp.send('Target.getTargets', { filter: [{}] } as never)) as { targetInfos: { type: string; url: string }[] };
      await cdp.detach();
      expect(targetInfos.map((target) => target.url)).toContain(`${pages.url}/`);
      expect(targetInfos.filter((target) => target.url.startsWith('chrome://omnibox-popup'))).toEqual([]);
    });

    it('fills and submits a form: type, select, click', async () => {
      const session = await open();
      await browse(session, { action: 'navigate', url: `${pages.url}/form` });
      const snapshot = textOf(await browse(session, { action: 'snapshot' }));
      await browse(session, { action: 'type', ref: refOf(snapshot, 'textbox "Name"'), text: 'Ada' });
      const selected = textOf(await browse(session, { action: 'select', ref: refOf(snapshot, 'combobox "Plan"'), values: ['Team'] }));
      expect(selected).toContain('Selected "team"');
      const sent = textOf(await browse(session, { action: 'click', ref: refOf(snapshot, 'button "Send"') }));
      expect(sent).toContain('Now: "Thanks"');
      expect(pages.requests).toContain('/submitted?name=Ada&plan=team');
      const after = textOf(await browse(session, { action: 'snapshot' }));
      expect(after).toContain('Thanks, Ada, for choosing team.');
    });

    it('types and submits with Enter, goes back and forward, presses keys, scrolls, hovers', async () => {
      const session = await open();
      await browse(session, { action: 'navigate', url: `${pages.url}/form` });
      const snapshot = textOf(await browse(session, { action: 'snapshot' }));
      const typed = textOf(await browse(session, { action: 'type', ref: refOf(snapshot, 'textbox "Name"'), text: 'Grace', submit: true }));
      expect(typed).toContain('and pressed Enter');
      expect(typed).toContain('Now: "Thanks"');
      expect(textOf(await browse(session, { action: 'back' }))).toContain('Now: "Form"');
      expect(textOf(await browse(session, { action: 'forward' }))).toContain('Now: "Thanks"');
      expect(textOf(await browse(session, { action: 'press', key: 'End' }))).toContain('Pressed End.');
      expect(textOf(await browse(session, { action: 'scroll', direction: 'down' }))).toContain('Scrolled down one screen.');
      await browse(session, { action: 'navigate', url: `${pages.url}/` });
      const home = textOf(await browse(session, { action: 'snapshot' }));
      expect(textOf(await browse(session, { action: 'hover', ref: refOf(home, 'button "Pay now"') }))).toContain('Hovering over button "Pay now"');
    });

    it('works with tabs: a link opening one, list, new, switch, close', async () => {
      const session = await open();
      await browse(session, { action: 'navigate', url: `${pages.url}/` });
      const snapshot = textOf(await browse(session, { action: 'snapshot' }));
      const clicked = textOf(await browse(session, { action: 'click', ref: refOf(snapshot, 'link "Open in a new tab"') }));
      expect(clicked).toContain('A new tab opened (2)');
      const list = textOf(await browse(session, { action: 'tab_list' }));
      expect(list).toMatch(/1\. "Home" .*\n2\. "Second tab" .* \(active\)/);
      expect(textOf(await browse(session, { action: 'tab_new', url: `${pages.url}/form` }))).toContain('Now: "Form"');
      expect(textOf(await browse(session, { action: 'tab_switch', tab: 1 }))).toContain('Now: "Home"');
      expect(textOf(await browse(session, { action: 'tab_close', tab: 2 }))).toContain('Closed tab 2.');
      expect(textOf(await browse(session, { action: 'tab_list' }))).toMatch(/^Tabs:\n1\. "Home" .* \(active\)\n2\. "Form" /);
      const missing = await browse(session, { action: 'tab_switch', tab: 9 });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toContain('there is no tab 9; the tabs are 1 to 2');
    });

    it('waits for text that appears later, and for a ref', async () => {
      const session = await open();
      await browse(session, { action: 'navigate', url: `${pages.url}/later` });
      expect(textOf(await browse(session, { action: 'wait_for', text: 'Report ready' }))).toContain('"Report ready" is on the page.');
      const missing = await browse(session, { action: 'wait_for', text: 'Never there', timeout_seconds: 0.5 });
      expect(missing.isError).toBe(true);
      expect(textOf(missing)).toMatch(/^Error: wait_for failed: .*Timeout/);
    });

    it('reports a page that never finishes loading, and stays usable', async () => {
      const session = await open();
      const slow = await browse(session, { action: 'navigate', url: `${pages.url}/slow`, timeout_seconds: 1 });
      expect(slow.isError).toBe(true);
      expect(textOf(slow)).toContain('The page did not finish loading within 1 s');
      expect(textOf(await browse(session, { action: 'navigate', url: `${pages.url}/form` }))).toContain('Now: "Form"');
    });

    it('refuses a ref that is not in the latest snapshot, with what to do', async () => {
      const session = await open();
      await browse(session, { action: 'navigate', url: `${pages.url}/` });
      const result = await browse(session, { action: 'click', ref: 'e999' });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('ref "e999" is not in the latest snapshot of this tab');
    });

    it('saves a download in the conversation folder, made private with the first file, and says so', async () => {
      const session = await open();
      expect(existsSync(join(folder, 'downloads'))).toBe(false);
      await browse(session, { action: 'navigate', url: `${pages.url}/` });
      const snapshot = textOf(await browse(session, { action: 'snapshot' }));
      let said = textOf(await browse(session, { action: 'click', ref: refOf(snapshot, 'link "Download the report"') }));
      const path = join(folder, 'downloads', 'report.csv');
      // The first action result after the download finished says so, once: the click's own when
      // it finished that fast, else a later one (each action reports what came meanwhile).
      await expect.poll(async () => (said += textOf(await browse(session, { action: 'tab_list' }))), { timeout: 10_000 }).toContain(`Downloaded report.csv to ${path}.`);
      expect(said.split('Downloaded report.csv').length - 1).toBe(1);
      expect(existsSync(path)).toBe(true);
      expect(readFileSync(path, 'utf8')).toBe('day,count\nmon,3\n');
      expect(statSync(join(folder, 'downloads')).mode & 0o777).toBe(0o700);
    });

    it('refuses this machine and private networks unless allowPrivateNetwork, and other schemes always', async () => {
      const session = await open(testSettings({ allowPrivateNetwork: false }));
      const seen = pages.requests.length;
      for (const url of [`${pages.url}/`, 'http://localhost:9/', 'http://10.0.0.1/', 'http://169.254.169.254/latest/meta-data/', 'http://[::1]:80/']) {
        const result = await browse(session, { action: 'navigate', url });
        expect(result.isError, url).toBe(true);
        expect(textOf(result), url).toContain('on this machine or a private network');
      }
      const file = await browse(session, { action: 'navigate', url: 'file:///etc/passwd' });
      expect(textOf(file)).toContain('only http and https addresses may be opened, not file:');
      expect(pages.requests.slice(seen)).toEqual([]);
    });

    it('honours blockUrls and allowUrls, also for requests a page makes', async () => {
      const session = await open(testSettings({ blockUrls: ['http://127.0.0.1'] }));
      expect(textOf(await browse(session, { action: 'navigate', url: `${pages.url}/` }))).toContain('is blocked by this gateway');
      const allowed = await open(testSettings({ allowUrls: ['example.invalid'] }));
      expect(textOf(await browse(allowed, { action: 'navigate', url: `${pages.url}/` }))).toContain('is not among the sites this gateway allows');
    });

    it('blocks a redirect or subresource into the private network from a page', async () => {
      const session = await open(testSettings({ allowPrivateNetwork: false }));
      // A page that is allowed (data: stays in the browser) loading an image from this machine.
      const page = `data:text/html,<title>Outside</title><img src="${pages.url}/secret.png">`;
      const tabs = await session.use(async (current) => current);
      await tabs.value.active.goto(page);
      const result = textOf(await browse(session, { action: 'tab_list' }));
      expect(result).toContain(`A request to ${pages.url}/secret.png was refused`);
      expect(pages.requests).not.toContain('/secret.png');
    });

    it('reports a crashed browser to the model and relaunches it on the next call', async () => {
      const session = await open();
      await browse(session, { action: 'navigate', url: `${pages.url}/` });
      const before = chromiumChildren();
      expect(before.length).toBeGreaterThan(0);
      for (const pid of before) process.kill(pid, 'SIGKILL');
      await expect.poll(() => session.isOpen, { timeout: 10_000 }).toBe(false);
      const state = await session.liveState(new AbortController().signal);
      expect(state?.text).toContain('The browser stopped unexpectedly');
      const again = textOf(await browse(session, { action: 'navigate', url: `${pages.url}/form` }));
      expect(again).toContain('The browser stopped unexpectedly (its process ended); its tabs were lost.');
      expect(again).toContain('Now: "Form"');
      expect(chromiumChildren().some((pid) => !before.includes(pid))).toBe(true);
    });

    it('closes a conversation idle past idleTimeoutSeconds, and tells the model next time', async () => {
      const session = await open(testSettings({ idleTimeoutSeconds: 10 }));
      await browse(session, { action: 'navigate', url: `${pages.url}/` });
      expect(await pool.sweep(Date.now() + 5_000)).toBe(0);
      expect(session.isOpen).toBe(true);
      expect(await pool.sweep(Date.now() + 11_000)).toBe(1);
      expect(session.isOpen).toBe(false);
      expect(await session.liveState(new AbortController().signal)).toMatchObject({ text: expect.stringContaining('closed after 10 s without use') });
      expect(textOf(await browse(session, { action: 'navigate', url: `${pages.url}/form` }))).toContain('closed after 10 s without use');
    });

    it('keeps at most maxContexts open, closing the conversation idle longest', async () => {
      folder = await makeTempDir();
      const settings = testSettings({ maxContexts: 2 });
      const [a, b, c] = ['a', 'b', 'c'].map((key) => pool.session(`web:dm:${key}`, settings, join(folder, key)));
      opened.push(a!, b!, c!);
      await browse(a, { action: 'navigate', url: `${pages.url}/` });
      await browse(b, { action: 'navigate', url: `${pages.url}/form` });
      await browse(a, { action: 'tab_list' });
      await browse(c, { action: 'navigate', url: `${pages.url}/later` });
      expect(pool.openContexts).toBe(2);
      expect([a!.isOpen, b!.isOpen, c!.isOpen]).toEqual([true, false, true]);
      expect(textOf(await browse(b, { action: 'tab_list' }))).toContain('closed to make room for another conversation');
    });

    it('close, and a conversation closed by /new or /stop, open again on the next action', async () => {
      const session = await open();
      await browse(session, { action: 'navigate', url: `${pages.url}/` });
      expect(textOf(await browse(session, { action: 'close' }))).toBe('Closed the browser.');
      expect(session.isOpen).toBe(false);
      expect(await session.liveState(new AbortController().signal)).toBeUndefined();
      expect(textOf(await browse(session, { action: 'close' }))).toBe('The browser was not open.');
      expect(textOf(await browse(session, { action: 'open' }))).toContain('The browser is open.');
    });

    it('a child agent (no browser handed down) is told it has none', async () => {
      const result = await browse(undefined, { action: 'navigate', url: `${pages.url}/` });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('This agent has no browser: a sub-agent never gets the browser');
    });

    it('a configured executablePath that does not exist is reported, not replaced', async () => {
      // A pool of its own, which starts no chromium: the file's may be running, so the processes
      // this one starts are those beyond the ones already there (none).
      const own = new BrowserPool();
      ownPools.push(own);
      const running = chromiumChildren();
      const session = await open(testSettings({ executablePath: '/opt/nowhere/chromium' }), own);
      const result = await browse(session, { action: 'navigate', url: `${pages.url}/` });
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('the configured browser /opt/nowhere/chromium (browser.executablePath) does not exist');
      expect(own.openContexts).toBe(0);
      expect(chromiumChildren()).toEqual(running);
    });

    it('caps a huge page in the live state with a visible marker', async () => {
      const session = await open();
      await browse(session, { action: 'navigate', url: `${pages.url}/big` });
      // The full snapshot first: the first one of a page this size also lays the page out, which on
      // a busy machine can outlast the live state's own capture limit (the state then says it has
      // no snapshot, and nothing is cut).
      const full = await takeSnapshot(session.current()!.active);
      expect(full.length).toBeGreaterThan(100_000);
      const state = await session.liveState(new AbortController().signal);
      expect(state!.text.length).toBeLessThanOrEqual(30_000);
      expect(state!.text).toMatch(/\[\.\.\. cut: \d+ more characters of the active tab's snapshot/);
    });
  });
});

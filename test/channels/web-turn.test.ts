/**
 * The web chat while a turn runs, against the channel served on a real port with test handlers
 * standing in for the gateway (see web-harness): the Stop button's request, the end of a turn
 * and the approval card on the wire, and in Debian's chromium the page's typing indicator, Stop
 * button, tables and message box (at a phone's width).
 */
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { ChannelAction } from '../../src/channels/types.ts';
import { launchChromium, whenChromiumInstalled } from '../helpers/chromium.ts';
import { openSse, startWebHarness } from '../helpers/web-harness.ts';
import type { SseStream, WebHarness } from '../helpers/web-harness.ts';

const newClientId = () => randomBytes(16).toString('hex');
const address = (clientId: string) => ({ platform: 'web', conversationId: clientId });
const approvalButtons = [[{ label: 'Approve', data: 'approve' }, { label: 'Deny', data: 'deny' }]];

let harness: WebHarness | undefined;
const streams: SseStream[] = [];

afterEach(async () => {
  for (const stream of streams.splice(0)) stream.close();
  await harness?.close();
  harness = undefined;
});

async function start(options?: Parameters<typeof startWebHarness>[0]): Promise<WebHarness> {
  harness = await startWebHarness(options);
  return harness;
}

async function events(origin: string, clientId: string): Promise<SseStream> {
  const stream = await openSse(`${origin}/web/events?clientId=${clientId}`);
  streams.push(stream);
  await stream.next((event) => event.type === 'ready');
  return stream;
}

function post(origin: string, path: string, body: unknown, contentType = 'application/json'): Promise<Response> {
  return fetch(`${origin}${path}`, { method: 'POST', headers: { 'content-type': contentType }, body: typeof body === 'string' ? body : JSON.stringify(body) });
}

describe('web chat: the Stop button on the wire', () => {
  it("hands the press over as the browser's own /stop command", async () => {
    const { origin, messages } = await start();
    const clientId = newClientId();
    const response = await post(origin, '/web/stop', { clientId, id: 'stop-1' });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ accepted: true, id: 'stop-1' });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      dedupeKey: `web:${clientId}:stop:stop-1`,
      sessionKey: `web:${clientId}`,
      address: { platform: 'web', conversationId: clientId },
      scope: 'dm',
      sender: { id: clientId },
      text: '/stop',
      command: { name: 'stop', args: '' },
    });
  });

  it.each([
    ['the session of another client', { sessionKey: 'web:ffffffffffffffffffffffffffffffff' }],
    ['the conversation of another client', { conversationId: 'ffffffffffffffffffffffffffffffff' }],
    ['a message of another client', { messageId: 'b1-1' }],
  ])("refuses a request that names %s: it can only stop the browser's own", async (_name, extra) => {
    const { origin, messages } = await start();
    const response = await post(origin, '/web/stop', { clientId: newClientId(), id: 'stop-2', ...extra });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(/Unrecognized key/);
    expect(messages).toHaveLength(0);
  });

  it('refuses a press without a valid client id or id, or not declared as JSON, and answers 503 while not running', async () => {
    const { origin, messages } = await start();
    expect((await post(origin, '/web/stop', { id: 'x' })).status).toBe(400);
    expect((await post(origin, '/web/stop', { clientId: 'short', id: 'x' })).status).toBe(400);
    expect((await post(origin, '/web/stop', { clientId: newClientId() })).status).toBe(400);
    expect((await post(origin, '/web/stop', JSON.stringify({ clientId: newClientId(), id: 'x' }), 'text/plain')).status).toBe(415);
    expect(messages).toHaveLength(0);
    await harness?.close();
    const stopped = await start({ notStarted: true });
    expect((await post(stopped.origin, '/web/stop', { clientId: newClientId(), id: 'x' })).status).toBe(503);
  });
});

describe('web chat: a turn on the wire', () => {
  it('says when the turn ended (never buffered) and sends an approval question with its card', async () => {
    const { origin, channel } = await start();
    const clientId = newClientId();
    await channel.stopTyping?.(address(clientId));
    expect(channel.bufferedCount(clientId)).toBe(0);
    const stream = await events(origin, clientId);
    await channel.typing(address(clientId));
    const approval = { tool: 'shell', reason: 'commands need a yes', arguments: { command: 'rm -rf build' } };
    const { ids } = await channel.send(address(clientId), { text: 'Approval needed: commands need a yes', buttons: approvalButtons, approval });
    await channel.stopTyping?.(address(clientId));
    await stream.next((event) => event.type === 'typing-stop');
    expect(stream.events.map((event) => event.type)).toEqual(['ready', 'typing', 'message', 'typing-stop']);
    expect(stream.events[2]?.data).toMatchObject({
      id: ids[0],
      buttons: approvalButtons,
      approval: { tool: 'shell', reason: 'commands need a yes', lines: [{ label: 'command', value: 'rm -rf build', kind: 'command' }], omitted: 0 },
    });
  });
});

whenChromiumInstalled('web chat turns in chromium', 'the browser tests of the web chat while a turn runs', () => {
  describe('web chat turns in chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    async function openPage(origin: string, viewport?: { width: number; height: number }): Promise<{ page: Page; clientId: string; problems: string[] }> {
      const page = await browser.newPage(viewport ? { viewport } : {});
      page.setDefaultTimeout(8_000);
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      // A blocked script or style (the content security policy) is reported as a console error.
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      await page.goto(`${origin}/`);
      await page.locator('#status[data-state="connected"]').waitFor();
      const clientId = await page.evaluate<string | null>("localStorage.getItem('operator.web.clientId')");
      return { page, clientId: clientId ?? '', problems };
    }

    /** A notice through the same stream: once it shows, every event sent before it was applied. */
    async function marker(harness: WebHarness, page: Page, clientId: string, text: string): Promise<void> {
      const action: ChannelAction = { id: text, dedupeKey: text, sessionKey: `web:${clientId}`, address: address(clientId), sender: { id: clientId }, data: 'x', raw: {} };
      await harness.channel.answerAction?.(action, text);
      await page.locator('.notice', { hasText: text }).waitFor();
    }

    it('renders a table in an answer as an HTML table, a cell holding HTML as text, under the strict policy', async () => {
      const { origin, channel } = await start();
      const response = await fetch(`${origin}/`);
      const policy = response.headers.get('content-security-policy') ?? '';
      expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+';/);
      expect(policy).toMatch(/style-src 'sha256-[A-Za-z0-9+/=]+';/);
      expect(policy).not.toContain('unsafe');
      const { page, clientId, problems } = await openPage(origin);
      await page.evaluate('window.__pwned = false');
      const table = '| Tool | Runs | Note |\n|:--|--:|:-:|\n| **shell** | 12 | <img src=x onerror="window.__pwned = true"> |\n| grep | 3 | <b>bold?</b> |';
      await channel.send(address(clientId), { text: `Usage:\n\n${table}` });
      const rendered = page.locator('.message.bot table');
      await rendered.waitFor();
      expect(await rendered.locator('th').allInnerTexts()).toEqual(['Tool', 'Runs', 'Note']);
      expect(await rendered.locator('tbody tr').count()).toBe(2);
      expect(await rendered.locator('td strong').innerText()).toBe('shell');
      expect(await rendered.locator('td').nth(2).innerText()).toBe('<img src=x onerror="window.__pwned = true">');
      expect(await rendered.locator('td').nth(5).innerText()).toBe('<b>bold?</b>');
      expect(await page.locator('.message.bot img, .message.bot td b').count()).toBe(0);
      expect(await page.evaluate('window.__pwned')).toBe(false);
      // The alignment classes are styled by the page's own stylesheet (an inline style would be blocked).
      const alignment = (cell: number) => page.evaluate<string>(`getComputedStyle(document.querySelectorAll('.message.bot td')[${cell}]).textAlign`);
      expect(await alignment(1)).toBe('right');
      expect(await alignment(2)).toBe('center');
      expect(problems).toEqual([]);
      await page.close();
    });

    it('shows the typing indicator while the turn works, not while its approval card waits, and ends it with the turn', async () => {
      const { origin, channel, actions } = await start();
      const harness_ = harness!;
      const { page, clientId, problems } = await openPage(origin);
      const typing = page.locator('#typing');
      expect(await typing.isHidden()).toBe(true);
      await channel.typing(address(clientId));
      await typing.waitFor({ state: 'visible' });

      const approval = { tool: 'shell', reason: 'commands need a yes', arguments: { command: 'make deploy', cwd: '/srv/app' } };
      await channel.send(address(clientId), { text: 'Approval needed: commands need a yes', buttons: approvalButtons, approval });
      const card = page.locator('.message.approval');
      await card.waitFor();
      await typing.waitFor({ state: 'hidden' });
      // The gateway renews the indicator while the turn waits: the card still holds it back.
      await channel.typing(address(clientId));
      await marker(harness_, page, clientId, 'renewed while waiting');
      expect(await typing.isHidden()).toBe(true);
      expect(await page.locator('#stop').isVisible()).toBe(true);

      // The card shows the call readably: the tool, why, the command as a command, the path as a path.
      expect(await card.locator('.approval-title').innerText()).toBe('Approve shell?');
      expect(await card.locator('.approval-reason').innerText()).toBe('commands need a yes');
      expect(await card.locator('dt').allInnerTexts()).toEqual(['command', 'cwd']);
      expect(await card.locator('pre.command code').innerText()).toBe('make deploy');
      expect(await card.locator('code.path').innerText()).toBe('/srv/app');
      expect(await card.innerText()).not.toContain('{');

      await card.locator('button', { hasText: 'Approve' }).click();
      await vi.waitFor(() => expect(actions.map((action) => action.data)).toEqual(['approve']));
      await typing.waitFor({ state: 'visible' });

      const { ids } = await channel.send(address(clientId), { text: 'Deployed …' });
      await channel.edit(address(clientId), ids[0] ?? '', { text: 'Deployed.' });
      await channel.stopTyping?.(address(clientId));
      await marker(harness_, page, clientId, 'after the turn');
      expect(await typing.isHidden()).toBe(true);
      expect(await page.locator('#stop').isHidden()).toBe(true);
      expect(await page.locator('.message.bot').last().innerText()).toBe('Deployed.');
      expect(problems).toEqual([]);
      await page.close();
    });

    it("shows Stop only while a turn runs; a press sends this browser's /stop", async () => {
      const { origin, channel, messages } = await start();
      const { page, clientId, problems } = await openPage(origin);
      const stop = page.locator('#stop');
      expect(await stop.isHidden()).toBe(true);
      await channel.typing(address(clientId));
      await stop.waitFor({ state: 'visible' });
      await stop.click();
      await vi.waitFor(() => expect(messages.map((message) => message.command?.name)).toEqual(['stop']));
      expect(messages[0]).toMatchObject({ sessionKey: `web:${clientId}`, sender: { id: clientId }, text: '/stop' });
      expect(await stop.isDisabled()).toBe(true);
      // No bubble for the press: the gateway's answer to /stop is what the person reads.
      expect(await page.locator('.message.user').count()).toBe(0);
      await harness?.idle();
      await channel.stopTyping?.(address(clientId));
      await stop.waitFor({ state: 'hidden' });
      await channel.typing(address(clientId));
      await stop.waitFor({ state: 'visible' });
      expect(await stop.isEnabled()).toBe(true);
      expect(problems).toEqual([]);
      await page.close();
    });

    it('fits the message box and its placeholder on a 375 px wide phone screen, with Stop showing too', async () => {
      const { origin, channel } = await start();
      const { page, clientId, problems } = await openPage(origin, { width: 375, height: 667 });
      /** Whether `text`, typed into the message box, stays on its one visible line; and whether anything overflows the screen. */
      // The text as the box's value: same font, same box, measured by the browser's own layout.
      const fits = (text: string) =>
        page.evaluate<{ oneLine: boolean; inside: boolean; pageFits: boolean }>(`(() => {
          const input = document.getElementById('input');
          const saved = input.value;
          input.value = ${JSON.stringify(text)};
          const oneLine = input.scrollHeight <= input.clientHeight && input.scrollWidth <= input.clientWidth;
          input.value = saved;
          const box = input.getBoundingClientRect();
          return { oneLine, inside: box.left >= 0 && box.right <= window.innerWidth, pageFits: document.documentElement.scrollWidth <= window.innerWidth };
        })()`);
      const placeholder = (await page.locator('#input').getAttribute('placeholder')) ?? '';
      expect(placeholder).not.toBe('');
      expect(await fits(placeholder)).toEqual({ oneLine: true, inside: true, pageFits: true });
      // The measurement does catch a placeholder that is cut off: the page's earlier one was.
      expect((await fits('Message operator (Enter sends, Shift+Enter for a new line)')).oneLine).toBe(false);

      await channel.typing(address(clientId));
      await page.locator('#stop').waitFor({ state: 'visible' });
      expect(await fits(placeholder)).toEqual({ oneLine: true, inside: true, pageFits: true });
      // A wide table scrolls inside its message instead of widening the page.
      await channel.send(address(clientId), { text: `| ${Array.from({ length: 12 }, (_, index) => `column-${index}`).join(' | ')} |\n|${'---|'.repeat(12)}` });
      await page.locator('.message.bot table').waitFor();
      expect(await page.evaluate<boolean>('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      expect(problems).toEqual([]);
      await page.close();
    });
  });
});

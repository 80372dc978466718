/**
 * The web chat while a turn runs, end to end: the real gateway process (a guardrail asking before
 * `shell`), the real Anthropic SDK against the fake model server, and Debian's chromium driving
 * the page. Text written before a tool call shows before the tool runs; the approval card shows
 * the call readably and holds back the typing indicator; the indicator and the Stop button go
 * with the answer; Stop stops the browser's own turn like `/stop`, and nobody else's; a table in
 * an answer is a table, its cells' HTML shown as text.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startFakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { launchChromium, whenChromiumInstalled } from '../helpers/chromium.ts';
import { fakeAnthropicEnv } from '../helpers/fake-model-env.ts';
import { startGateway } from '../helpers/gateway-process.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

const guardrail = 'rules:\n  - tool: shell\n    decision: ask\n    reason: commands need a yes\n';

whenChromiumInstalled('web chat turns through the gateway', 'the end-to-end tests of the web chat while a turn runs', () => {
  describe('web chat turns through the gateway', () => {
    let server: FakeModelServer;
    let gateway: StartedGateway;
    let browser: Browser;
    let home: string;

    beforeAll(async () => {
      server = await startFakeModelServer();
      home = createTempHome('operator-web-turns-e2e-');
      mkdirSync(join(home, 'guardrails'), { recursive: true });
      writeFileSync(join(home, 'guardrails', 'ask.yaml'), guardrail);
      gateway = await startGateway({ home, env: fakeAnthropicEnv(server) });
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
      await gateway?.stop();
      await server?.close();
      removeTempHome(home);
    });

    /** A page of its own browser context: its own client id, its own conversation. */
    async function openPage(): Promise<{ page: Page; problems: string[] }> {
      const page = await browser.newPage();
      page.setDefaultTimeout(10_000);
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      await page.goto(`${gateway.origin}/`);
      await page.locator('#status[data-state="connected"]').waitFor();
      return { page, problems };
    }

    async function say(page: Page, text: string): Promise<void> {
      await page.locator('#input').fill(text);
      await page.keyboard.press('Enter');
    }

    it('shows the text before a tool call at once, then a readable approval card without the typing indicator; both end with the answer', async () => {
      server.enqueue(
        { text: 'Checking.', toolCalls: [{ name: 'shell', arguments: { command: 'echo approved-run', timeout_ms: 5000 } }] },
        { text: 'All done: the command ran.' },
      );
      const { page, problems } = await openPage();
      await say(page, 'run the check');

      const card = page.locator('.message.approval');
      await card.waitFor();
      // Shorter than a preview usually needs, and not part of the final answer: shown because a tool call began.
      const before = page.locator('.message.bot', { hasText: 'Checking.' });
      await before.waitFor();
      const messages = page.locator('.message.bot');
      expect(await messages.count()).toBe(2);
      expect(await messages.nth(0).innerText()).toContain('Checking.');
      expect(await messages.nth(1).getAttribute('class')).toContain('approval');

      expect(await card.locator('.approval-title').innerText()).toBe('Approve shell?');
      expect(await card.locator('.approval-reason').innerText()).toContain('commands need a yes');
      expect(await card.locator('dt').allInnerTexts()).toEqual(['command', 'timeout_ms']);
      expect(await card.locator('pre.command code').innerText()).toBe('echo approved-run');
      expect(await card.locator('dd').nth(1).innerText()).toBe('5000');
      expect(await card.innerText()).not.toMatch(/[{}"]/);

      // The turn runs (Stop shows) but waits for the person: no typing indicator.
      await page.locator('#stop').waitFor({ state: 'visible' });
      expect(await page.locator('#typing').isHidden()).toBe(true);

      await card.locator('button', { hasText: 'Allow once' }).click();
      await page.locator('.notice', { hasText: 'Approved.' }).waitFor();
      await page.locator('.message.bot', { hasText: 'All done: the command ran.' }).waitFor();
      // The page has no timer for these: only the end of the turn takes them down.
      await page.locator('#typing').waitFor({ state: 'hidden' });
      await page.locator('#stop').waitFor({ state: 'hidden' });
      expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toContain('approved-run');
      expect(problems).toEqual([]);
      await page.close();
    });

    it("stops the browser's own turn with the Stop button; another browser cannot stop it", async () => {
      server.enqueue({ text: `Once upon a time, ${'and then it went on, '.repeat(120)}the end.`, chunkSize: 4, delayMs: 40 });
      const { page: owner, problems } = await openPage();
      const { page: other } = await openPage();
      const ownerId = await owner.evaluate<string>("localStorage.getItem('operator.web.clientId')");
      await say(owner, 'tell me a long story');
      await owner.locator('#stop').waitFor({ state: 'visible' });
      const story = owner.locator('.message.bot', { hasText: 'Once upon a time' });
      await story.waitFor();
      expect(await other.locator('#stop').isHidden()).toBe(true);

      // The other browser's own Stop request stops its own conversation, where nothing runs;
      // naming the owner's conversation in the request is refused.
      const stop = (extra: Record<string, string>) =>
        other.evaluate<number>(`(async () => {
          const clientId = localStorage.getItem('operator.web.clientId');
          const body = JSON.stringify({ clientId, id: 'other-stop-' + Math.random().toString(36).slice(2), ...${JSON.stringify(extra)} });
          return (await fetch('/web/stop', { method: 'POST', headers: { 'content-type': 'application/json' }, body })).status;
        })()`);
      expect(await stop({})).toBe(202);
      await other.locator('.message.bot', { hasText: 'Nothing is running.' }).waitFor();
      expect(await stop({ sessionKey: `web:${ownerId}` })).toBe(400);
      expect(await stop({ conversationId: ownerId })).toBe(400);

      // The owner's story goes on growing after that.
      const length = (await story.innerText()).length;
      await vi.waitFor(async () => expect((await story.innerText()).length).toBeGreaterThan(length), { timeout: 10_000, interval: 50 });
      expect(await owner.locator('.message.bot', { hasText: 'Stopping' }).count()).toBe(0);
      expect(await owner.locator('#stop').isVisible()).toBe(true);

      await owner.locator('#stop').click();
      // The answer of /stop itself: the button went down the command's path.
      await owner.locator('.message.bot', { hasText: 'Stopping.' }).waitFor();
      await owner.locator('#stop').waitFor({ state: 'hidden' });
      await owner.locator('#typing').waitFor({ state: 'hidden' });
      expect(await owner.locator('.message.bot').allInnerTexts()).not.toContainEqual(expect.stringContaining('the end.'));
      expect(await owner.locator('.message.user').allInnerTexts()).toEqual(['tell me a long story']);
      expect(problems).toEqual([]);
      await owner.close();
      await other.close();
    });

    it('renders a table in an answer, with the HTML in a cell shown as text', async () => {
      server.enqueue({ text: 'Here:\n\n| Name | Value |\n|---|--:|\n| <img src=x onerror="document.title=1"> | **42** |\n' });
      const { page, problems } = await openPage();
      await say(page, 'a table please');
      const table = page.locator('.message.bot table');
      await table.waitFor();
      expect(await table.locator('th').allInnerTexts()).toEqual(['Name', 'Value']);
      expect(await table.locator('td').first().innerText()).toBe('<img src=x onerror="document.title=1">');
      expect(await table.locator('td strong').innerText()).toBe('42');
      expect(await page.locator('.message img').count()).toBe(0);
      expect(await page.title()).toBe('operator');
      expect(problems).toEqual([]);
      await page.close();
    });
  });
});

/**
 * The web chat end to end: the real gateway process, the real Anthropic SDK against the fake model
 * server, and Debian's chromium driving the page.
 */
import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { fakeAnthropicEnv } from '../helpers/fake-model-env.ts';
import { startGateway } from '../helpers/gateway-process.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

const chromiumPath = '/usr/bin/chromium';
const launchArgs = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

if (existsSync(chromiumPath)) {
  describe('web chat through the gateway', () => {
    let server: FakeModelServer;
    let gateway: StartedGateway;
    let browser: Browser;
    let home: string;

    beforeAll(async () => {
      server = await startFakeModelServer();
      home = createTempHome('operator-web-e2e-');
      gateway = await startGateway({ home, env: fakeAnthropicEnv(server) });
      browser = await chromium.launch({ executablePath: chromiumPath, args: launchArgs, headless: true });
    });

    afterAll(async () => {
      await browser?.close();
      await gateway?.stop();
      await server?.close();
      removeTempHome(home);
    });

    it('answers in the page with the streamed reply and shows the history after a reload', async () => {
      server.enqueue({ text: 'Hello from **operator**, streamed in small pieces to the page.', chunkSize: 6, delayMs: 15 });
      const page = await browser.newPage();
      await page.goto(`${gateway.origin}/`);
      await page.locator('#input').fill('hi there');
      await page.keyboard.press('Enter');
      await page.locator('.message.bot, .message.assistant').filter({ hasText: 'streamed in small pieces to the page.' }).waitFor();
      expect(await page.locator('.message').last().locator('strong').textContent()).toBe('operator');
      // The model saw the person's text; the conversation is a web session.
      expect(JSON.stringify(server.requests.at(-1)!.body.messages)).toContain('hi there');
      await page.reload();
      await page.locator('.message').filter({ hasText: 'hi there' }).waitFor();
      await page.locator('.message').filter({ hasText: 'streamed in small pieces' }).waitFor();
      await page.close();
    });
  });
} else if (process.env.CI) {
  describe('web chat through the gateway', () => {
    it('needs /usr/bin/chromium in CI', () => {
      throw new Error('chromium is not installed: CI must install it (apt-get install -y chromium)');
    });
  });
} else {
  console.warn('/usr/bin/chromium is missing: the web chat end-to-end test is SKIPPED');
  describe('web chat through the gateway', () => {
    it.skip('SKIPPED: /usr/bin/chromium is missing', () => {});
  });
}

/**
 * The web chat end to end: the real gateway process, the real Anthropic SDK against the fake model
 * server, and Debian's chromium driving the page.
 */
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import { launchChromium, whenChromiumInstalled } from '../helpers/chromium.ts';
import { fakeAnthropicEnv } from '../helpers/fake-model-env.ts';
import { startGateway } from '../helpers/gateway-process.ts';
import type { StartedGateway } from '../helpers/gateway-process.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

whenChromiumInstalled('web chat through the gateway', 'the web chat end-to-end test', () => {
  describe('web chat through the gateway', () => {
    let server: FakeModelServer;
    let gateway: StartedGateway;
    let browser: Browser;
    let home: string;

    beforeAll(async () => {
      server = await startFakeModelServer();
      home = createTempHome('operator-web-e2e-');
      gateway = await startGateway({ home, env: fakeAnthropicEnv(server) });
      browser = await launchChromium();
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
});

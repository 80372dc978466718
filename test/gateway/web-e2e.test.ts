/**
 * The web chat end to end: the real gateway process, the real Anthropic SDK against the fake model
 * server, and Debian's chromium driving the page.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';

const chromiumPath = '/usr/bin/chromium';
const launchArgs = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

if (existsSync(chromiumPath)) {
  describe('web chat through the gateway', () => {
    let server: FakeModelServer;
    let gateway: ChildProcessWithoutNullStreams;
    let browser: Browser;
    let home: string;
    let url = '';

    beforeAll(async () => {
      server = await startFakeModelServer();
      home = mkdtempSync(join(tmpdir(), 'operator-web-e2e-'));
      gateway = spawn(process.execPath, ['bin/operator.js', 'start'], {
        env: { PATH: process.env.PATH, HOME: home, OPERATOR_HOME: home, PORT: '0', ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: server.anthropicBaseURL },
      });
      let output = '';
      gateway.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      gateway.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      for (let i = 0; i < 1500 && !url; i++) {
        url = /web chat: (http:\/\/localhost:\d+\/)/.exec(output)?.[1] ?? '';
        if (!url) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      if (!url) throw new Error(`gateway did not start:\n${output}`);
      browser = await chromium.launch({ executablePath: chromiumPath, args: launchArgs, headless: true });
    });

    afterAll(async () => {
      await browser?.close();
      gateway?.kill('SIGTERM');
      await server?.close();
      rmSync(home, { recursive: true, force: true });
    });

    it('answers in the page with the streamed reply and shows the history after a reload', async () => {
      server.enqueue({ text: 'Hello from **operator**, streamed in small pieces to the page.', chunkSize: 6, delayMs: 15 });
      const page = await browser.newPage();
      await page.goto(url);
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

/**
 * The admin console end to end: the real gateway process with Telegram (grammy against the fake
 * Bot API) and the real Anthropic SDK against the fake model server, Debian's chromium driving
 * the console page. The admin logs in with the link `operator admin url` prints, watches a
 * Telegram conversation appear and reads its transcript and prompt parts, pauses a job made with
 * `operator schedule add`, approves a stranger's pairing request (who is then answered), reloads
 * the profile with a broken skill and sees its file and line, sees the usage (which survives a
 * restart) and the live events, opens a pipeline run `operator pipeline run` made (its step,
 * prompt and response), and uses it at a phone's width. A page without the CSRF token,
 * and a browser without the token, are refused.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupNoticeText, pairingNoticeText } from '../../src/gateway/access/index.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { launchChromium, whenChromiumInstalled } from '../helpers/chromium.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { runOperator } from '../helpers/operator-process.ts';
import { fakeAnthropicKey } from '../helpers/fake-model-env.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = 1001;
const stranger = 2002;

whenChromiumInstalled('the admin console in a browser', 'the admin console end-to-end test', () => {
  describe('the admin console in a browser', () => {
    let fakes: TelegramGatewayFakes;
    let model: FakeModelServer;
    let telegram: FakeTelegram;
    let gateway: GatewayProcess;
    let origin: string;
    let browser: Browser;
    let page: Page;

    const cli = (args: string[]) => runOperator(args, { HOME: fakes.home, OPERATOR_HOME: fakes.home });
    const from = (id: number, name: string) => ({ id, first_name: name });

    beforeAll(async () => {
      fakes = await startTelegramGatewayFakes('operator-admin-console-');
      ({ model, telegram } = fakes);
      gateway = await startTelegramGateway(fakes, [admin]);
      origin = await gateway.ready();
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
      await gateway?.stop();
      await fakes?.close();
    });

    it('logs in with the link operator admin url prints, leaving no token in the address bar', async () => {
      const link = await cli(['admin', 'url']);
      expect(link.code).toBe(0);
      expect(link.stdout.trim()).toMatch(new RegExp(`^${origin}/admin/login#token=[A-Za-z0-9_%-]{43,}$`));
      page = await browser.newPage();
      await page.goto(link.stdout.trim());
      await page.waitForURL(`${origin}/admin`);
      await page.locator('h2', { hasText: 'Conversations' }).waitFor();
      expect(page.url()).not.toContain('token');
      await page.locator('#live[data-state="connected"]').waitFor();
    });

    it('shows a Telegram conversation as it appears, then its transcript and its prompt\'s parts', async () => {
      model.enqueue({ text: 'Hello Ada, the console can see this.' });
      telegram.pushUpdate(telegram.textMessage({ chatId: admin, text: 'hello from telegram', from: from(admin, 'Ada') }));
      await findBotMessage(telegram, gateway, admin, 'the console can see this', 15_000);
      const row = page.locator('tr[data-key="telegram:dm:1001"]');
      await row.waitFor();
      expect(await row.locator('td').nth(1).textContent()).toBe('telegram');
      expect(await row.locator('td').nth(2).textContent()).toBe('default');
      // The usage ledger counted the turn (from the gateway's events).
      await expect.poll(async () => row.locator('td').nth(4).textContent(), { timeout: 15_000 }).toBe('1');
      expect(Number((await row.locator('td').nth(5).textContent())!.replace(/,/g, ''))).toBeGreaterThan(0);

      await page.locator('#search').fill('no such conversation anywhere');
      await page.locator('#conversation-count', { hasText: '0 of 1 conversations' }).waitFor();
      await page.locator('#search').fill('telegram');
      await row.locator('a').click();
      await page.locator('#transcript .turn.user', { hasText: 'hello from telegram' }).waitFor();
      await page.locator('#transcript .turn.assistant', { hasText: 'the console can see this' }).waitFor();
      const parts = await page.locator('#prompt-parts tbody tr td:first-child').allTextContents();
      expect(parts).toContain('footer');
      expect(parts).toContain('platform hint');
    });

    it('pauses a job made with operator schedule add, as the command line would', async () => {
      const added = await cli(['schedule', 'add', '--to', `telegram:${admin}`, '--every', '1h', '--name', 'hourly digest', 'post the digest']);
      expect(added.code, added.stderr).toBe(0);
      const id = /Scheduled job "hourly digest" \(([0-9a-z]{8})\)/.exec(added.stdout)![1]!;
      await page.locator('.tabs a[data-page="jobs"]').click();
      const row = page.locator(`tr[data-job="${id}"]`);
      await row.locator('.state', { hasText: 'active' }).waitFor();
      await row.locator('button', { hasText: 'Pause' }).click();
      await page.locator('#job-answer', { hasText: `Paused job "hourly digest" (${id}).` }).waitFor();
      await row.locator('.state', { hasText: 'paused' }).waitFor();
      await row.getByText('paused by the admin console').waitFor();
      const listed = await cli(['schedule', 'list', '--json']);
      expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ id, state: 'paused' })]);
    });

    it('approves a stranger\'s pairing request; the stranger is told, then answered', async () => {
      telegram.pushUpdate(telegram.textMessage({ chatId: stranger, text: 'hello?', from: from(stranger, 'Bob') }));
      const notice = await findBotMessage(telegram, gateway, stranger, 'pairing code', 15_000);
      const code = /\b([A-HJ-NP-Z2-9]{8})\b/.exec(notice.text)![1]!;
      await page.locator('.tabs a[data-page="pairing"]').click();
      const row = page.locator(`tr[data-code="${code}"]`);
      await row.getByText('telegram:2002 Bob').waitFor();
      await row.locator('button', { hasText: 'Approve' }).click();
      await page.locator('#pairing-answer', { hasText: 'Paired telegram:2002 Bob' }).waitFor();
      await page.locator('tr[data-person="telegram:2002"]').waitFor();
      // Told as after /pair (the pairing notifier's text).
      await findBotMessage(telegram, gateway, stranger, pairingNoticeText(false), 15_000);
      model.enqueue({ toolCalls: [{ name: 'memory', arguments: { action: 'add', target: 'memory', content: 'Bob runs the night shift.' } }] }, { text: 'Welcome, Bob.' });
      telegram.pushUpdate(telegram.textMessage({ chatId: stranger, text: 'now? I run the night shift', from: from(stranger, 'Bob') }));
      await findBotMessage(telegram, gateway, stranger, 'Welcome, Bob.', 15_000);
    });

    it("shows what Bob's conversation keeps in memory, with its source, and the change as a diff", async () => {
      await page.goto(`${origin}/admin#conversation/${encodeURIComponent(`telegram:dm:${stranger}`)}`);
      const entry = page.locator('#memory-entries li', { hasText: 'Bob runs the night shift.' });
      await entry.waitFor();
      expect(await entry.locator('.muted').textContent()).toMatch(/^This conversation's memory · from Bob's words here, message \d+ · /);
      const change = page.locator('#memory-changes .diff', { hasText: 'Bob runs the night shift.' });
      expect(await change.locator('.diff-add').textContent()).toBe('+ Bob runs the night shift.');
      expect(await change.locator('.diff-del').count()).toBe(0);
      expect(await change.locator('.diff-head').textContent()).toContain("This conversation's memory · add · from Bob's words here");
    });

    it("changes Bob's conversation's settings as /config would: thinking and a tool group, in force at his next turn", async () => {
      const card = page.locator('#settings');
      expect(await card.locator('#settings-profile').inputValue()).toBe('default');
      expect(await card.locator('#settings-think').inputValue()).toBe('off');
      await card.locator('#settings-think').selectOption('high');
      await card.locator('#settings-tools input[value="write"]').check();
      await card.locator('button', { hasText: 'Save' }).click();
      await page.locator('#settings-answer', { hasText: 'Thinking is now high.' }).waitFor();
      expect(await page.locator('#settings-answer').textContent()).toContain('Granted everyone here: write.');
      model.enqueue({ text: 'Set, Bob.' });
      telegram.pushUpdate(telegram.textMessage({ chatId: stranger, text: 'what changed?', from: from(stranger, 'Bob') }));
      await findBotMessage(telegram, gateway, stranger, 'Set, Bob.', 15_000);
      const request = model.requests.at(-1)!.body;
      expect((request.tools as { name: string }[]).map((tool) => tool.name)).toContain('write_file');
      expect(request.thinking).toMatchObject({ type: 'enabled' });
      // Bad input is refused with the reason, and changes nothing.
      const { csrf } = JSON.parse((await page.locator('#admin-config').textContent())!) as { csrf: string };
      const response = await page.request.post(`${origin}/admin/api/settings`, { data: { key: 'telegram:dm:2002', tools: ['root'] }, headers: { 'x-csrf-token': csrf, origin } });
      const refused = { status: response.status(), body: (await response.json()) as { error: string } };
      expect(refused.status).toBe(400);
      expect(refused.body.error).toContain('tools');
    });

    it('denies a request and revokes an approval, as operator pairing deny and revoke do', async () => {
      const other = 3003;
      telegram.pushUpdate(telegram.textMessage({ chatId: other, text: 'let me in', from: from(other, 'Cy') }));
      const code = /\b([A-HJ-NP-Z2-9]{8})\b/.exec((await findBotMessage(telegram, gateway, other, 'pairing code', 15_000)).text)![1]!;
      await page.locator('.tabs a[data-page="conversations"]').click();
      await page.locator('.tabs a[data-page="pairing"]').click();
      await page.locator(`tr[data-code="${code}"] button`, { hasText: 'Deny' }).click();
      await page.locator('#pairing-answer', { hasText: 'Declined telegram:3003 Cy' }).waitFor();
      await page.locator('#pairing-denied', { hasText: 'telegram:3003 Cy' }).waitFor();
      page.once('dialog', (dialog) => void dialog.accept());
      await page.locator('tr[data-person="telegram:2002"] button', { hasText: 'Revoke' }).click();
      await page.locator('#pairing-answer', { hasText: 'Revoked telegram:2002 Bob' }).waitFor();
      const listed = await cli(['pairing', 'list']);
      expect(listed.stdout).not.toMatch(/Approved:[\s\S]*telegram:2002/);
      // Bob is a stranger again: a new code, not an answer.
      const requests = model.requests.length;
      telegram.pushUpdate(telegram.textMessage({ chatId: stranger, text: 'still there?', from: from(stranger, 'Bob') }));
      await findBotMessage(telegram, gateway, stranger, 'pairing code', 15_000);
      expect(model.requests.length).toBe(requests);
    });

    it("approves and revokes a group that asked with its code, as operator pairing does; the group is told", async () => {
      const group = -1004004;
      telegram.pushUpdate(telegram.textMessage({ chatId: group, text: `@${telegram.bot.username} hello?`, from: from(4004, 'Dee') }));
      const code = /\/pair ([A-HJ-NP-Z2-9]{8})\b/.exec((await findBotMessage(telegram, gateway, group, '/pair ', 15_000)).text)![1]!;
      await page.locator('.tabs a[data-page="conversations"]').click();
      await page.locator('.tabs a[data-page="pairing"]').click();
      const row = page.locator(`#pairing-groups-pending tr[data-code="${code}"]`);
      await row.getByText(`telegram:group:${group}`).waitFor();
      await row.getByText('telegram:4004 Dee').waitFor();
      await row.locator('button', { hasText: 'Approve' }).click();
      await page.locator('#pairing-answer', { hasText: `Approved telegram:group:${group}` }).waitFor();
      await findBotMessage(telegram, gateway, group, groupNoticeText, 15_000);
      page.once('dialog', (dialog) => void dialog.accept());
      await page.locator(`tr[data-group="telegram:group:${group}"] button`, { hasText: 'Revoke' }).click();
      await page.locator('#pairing-answer', { hasText: `Revoked telegram:group:${group}` }).waitFor();
    });

    it('reloads the profile with a broken skill and shows the file and line, as /reload does', async () => {
      const skill = join(fakes.home, 'skills', 'broken');
      mkdirSync(skill, { recursive: true });
      writeFileSync(join(skill, 'SKILL.md'), '---\nname: broken\ndescription: [never closed\n---\nDo something.\n');
      await page.locator('.tabs a[data-page="profiles"]').click();
      const card = page.locator('section[data-profile="default"]');
      await card.getByText('Everything loaded.').waitFor();
      await card.locator('button', { hasText: 'Reload' }).click();
      const report = card.locator('pre.reload-report');
      await report.waitFor();
      const text = (await report.textContent())!;
      expect(text).toMatch(/^Reloaded default: \d+ skills/);
      // The line is the YAML parser's, as the chat's /reload says it.
      const where = new RegExp(`Problem: (${join(skill, 'SKILL.md').replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:\\d+): invalid YAML frontmatter`).exec(text);
      expect(where, text).not.toBeNull();
      await card.locator('.problems code', { hasText: where![1]! }).waitFor();
      // The chat's /reload says the same.
      telegram.pushUpdate(telegram.textMessage({ chatId: admin, text: '/reload', from: from(admin, 'Ada') }));
      const chat = await findBotMessage(telegram, gateway, admin, 'Problem:', 15_000);
      expect(chat.text).toContain(where![0]!);
    });

    it('lists a pipeline run that operator pipeline run made, and opens it: its step, prompt and response', async () => {
      const file = join(fakes.home, 'notes.dot');
      writeFileSync(file, 'digraph notes {\n  start [shape=Mdiamond]\n  draft [prompt="Draft the release notes"]\n  done [shape=Msquare]\n  start -> draft -> done\n}\n');
      model.enqueue({ text: 'Notes drafted.' });
      const ran = await runOperator(['pipeline', 'run', file], { HOME: fakes.home, OPERATOR_HOME: fakes.home, ANTHROPIC_API_KEY: fakeAnthropicKey, ANTHROPIC_BASE_URL: model.anthropicBaseURL });
      expect(ran.code, ran.stderr).toBe(0);
      const id = /Run ([0-9a-f]{6}) of notes started\./.exec(ran.stdout)![1]!;
      await page.locator('.tabs a[data-page="runs"]').click();
      const row = page.locator(`tr[data-run="${id}"]`);
      await row.locator('.state', { hasText: 'finished' }).waitFor();
      await row.locator('a', { hasText: id }).click();
      await page.locator('h2', { hasText: `Run ${id} of notes: finished` }).waitFor();
      const step = page.locator('[data-step="draft"]');
      await step.locator('h3', { hasText: 'draft: success, 1 attempt' }).waitFor();
      await step.locator('summary', { hasText: 'Prompt' }).click();
      await step.locator('pre', { hasText: 'Draft the release notes' }).waitFor();
      await step.locator('summary', { hasText: 'Response' }).click();
      await step.locator('pre', { hasText: 'Notes drafted.' }).waitFor();
      expect(page.url()).toBe(`${origin}/admin#run/${id}`);
    });

    it('shows usage per day with the chart, and the live events', async () => {
      await page.locator('.tabs a[data-page="usage"]').click();
      await page.locator('#usage-charts svg').first().waitFor();
      expect(await page.locator('#usage-total').textContent()).toMatch(/: [1-9]\d* turns, [\d,]+ tokens/);
      expect(await page.locator('#usage-conversations').textContent()).toContain('telegram:dm:1001');
      await page.locator('.tabs a[data-page="events"]').click();
      await page.locator('#events li', { hasText: 'message.accepted' }).first().waitFor();
      await page.locator('#events li', { hasText: 'turn.end' }).first().waitFor();
    });

    it('refuses a change without the session\'s CSRF token, and a browser without the token', async () => {
      const status = (await page.evaluate(
        "fetch('/admin/api/jobs', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ action: 'rm', id: 'abc' }) }).then((r) => r.status)",
      )) as number;
      expect(status).toBe(403);
      const stranger = await browser.newPage();
      await stranger.goto(`${origin}/admin`);
      await stranger.locator('h2', { hasText: 'Log in to the admin console' }).waitFor();
      expect(await stranger.evaluate("fetch('/admin/api/conversations').then((r) => r.status)")).toBe(401);
      await stranger.locator('#token').fill('not-the-admin-token-at-all');
      await stranger.locator('button[type="submit"]').click();
      await stranger.getByText('That token is not right.').waitFor();
      await stranger.close();
    });

    it('fits a phone\'s screen: the tabs and the page, with no sideways scrolling of the page', async () => {
      const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
      const small = await phone.newPage();
      await small.goto((await cli(['admin', 'url'])).stdout.trim());
      await small.locator('tr[data-key="telegram:dm:1001"]').waitFor();
      expect(await small.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
      await small.locator('.tabs a[data-page="jobs"]').tap();
      await small.locator('tr[data-job] button', { hasText: 'Resume' }).waitFor();
      await phone.close();
    });

    it('keeps the usage per day across a restart', async () => {
      const token = /#token=(.*)$/.exec((await cli(['admin', 'url'])).stdout.trim())![1]!;
      const before = (await (await fetch(`${origin}/admin/api/usage?days=7`, { headers: { authorization: `Bearer ${decodeURIComponent(token)}` } })).json()) as { total: { turns: number } };
      expect(before.total.turns).toBeGreaterThan(0);
      await page.close();
      expect(await gateway.stop()).toBe(0);
      gateway = await startTelegramGateway(fakes, [admin]);
      const again = await gateway.ready();
      const after = (await (await fetch(`${again}/admin/api/usage?days=7`, { headers: { authorization: `Bearer ${decodeURIComponent(token)}` } })).json()) as { total: { turns: number } };
      expect(after.total).toEqual(before.total);
    });
  });
});

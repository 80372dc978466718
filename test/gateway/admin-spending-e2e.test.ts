/**
 * The admin console's spending, through the real gateway process (the fake Bot API, the real
 * Anthropic SDK against the fake model): its card's data and its kill switch (`GET|POST
 * /admin/api/spending`) are refused to a stranger (no token, a wrong one, a session without its
 * CSRF token, another site); from a logged-in admin session, Pause stops every model call of the
 * running gateway, as `operator budget pause` does (the command line sees it), and Resume answers
 * the message that waited, once. A malformed change answers 400 with the reason. A conversation's
 * page shows its spend today against its caps. In a browser (chromium), the card's buttons do the
 * same.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCookieName } from '../../src/gateway/admin/admin-session.ts';
import { adminTokenPath } from '../../src/gateway/admin/admin-token.ts';
import { launchChromium, whenChromiumInstalled } from '../helpers/chromium.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { runOperator } from '../helpers/operator-process.ts';
import { cookieFrom, rawRequest, type RawResponse } from '../helpers/raw-http.ts';
import { findBotMessage, findFinalBotMessage, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const owner = { id: 8301, first_name: 'Ada' };
const member = { id: 8302, first_name: 'Oz' };
const wait = 30_000;
const pausedReply = 'Model calls are paused by an admin (/budget pause): this message is answered once they resume.';
/** 10,000 input and 1,000 output tokens: $0.03 + $0.015 at claude-sonnet-4-6's prices. */
const usage = { input: 10_000, output: 1_000 };

let fakes: TelegramGatewayFakes;
let gateway: StartedGateway;
let token: string;

beforeAll(async () => {
  fakes = await startTelegramGatewayFakes('operator-admin-spending-');
  // Every conversation capped at $3 a day; anyone may write to the bot directly (the member is no admin).
  writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ budgets: { conversation: { day: 3 } }, dmPolicy: { telegram: 'open' } }));
  gateway = await startGateway({ home: fakes.home, env: fakes.env([owner.id]) }, wait);
  token = readFileSync(adminTokenPath(fakes.home), 'utf8').trim();
});

afterAll(async () => {
  await gateway?.stop();
  await fakes?.close();
});

const host = () => new URL(gateway.origin).host;
const get = (path: string, headers: Record<string, string> = {}) => rawRequest(`${gateway.origin}${path}`, { headers: { host: host(), ...headers } });
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  rawRequest(`${gateway.origin}${path}`, { method: 'POST', headers: { host: host(), 'content-type': 'application/json', ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });
const bearer = () => ({ authorization: `Bearer ${token}` });
const spending = async () => JSON.parse((await get('/admin/api/spending', bearer())).body) as { paused: boolean; spent: { day: number } };
const say = (from: { id: number; first_name: string }, text: string) => fakes.telegram.pushUpdate(fakes.telegram.textMessage({ chatId: from.id, text, from }));

/** A session of the admin: its cookie and the CSRF token its page carries. */
async function logIn(): Promise<{ cookie: string; csrf: string }> {
  const origin = gateway.origin;
  const response = await rawRequest(`${origin}/admin/login`, { method: 'POST', headers: { host: host(), 'content-type': 'application/x-www-form-urlencoded', origin }, body: `token=${encodeURIComponent(token)}` });
  expect(response.status).toBe(303);
  const cookie = cookieFrom(response, adminCookieName(Number(new URL(origin).port)))!;
  const page = await get('/admin', { cookie });
  const csrf = JSON.parse(/<script type="application\/json" id="admin-config">(.*?)<\/script>/.exec(page.body)![1]!).csrf as string;
  return { cookie, csrf };
}

function expectNoToken(response: RawResponse): void {
  expect(response.body).not.toContain(token);
}

describe("the console's spending over HTTP", () => {
  it('refuses the card and its switch to a stranger: no token, a wrong one, no CSRF token, another site', async () => {
    const refusals = [
      [await get('/admin/api/spending'), 401],
      [await post('/admin/api/spending', { action: 'pause' }, { origin: gateway.origin }), 401],
      [await post('/admin/api/spending', { action: 'pause' }, { authorization: `Bearer ${'z'.repeat(43)}` }), 401],
    ] as const;
    for (const [response, status] of refusals) {
      expect(response.status).toBe(status);
      expectNoToken(response);
    }
    const { cookie, csrf } = await logIn();
    expect((await post('/admin/api/spending', { action: 'pause' }, { cookie, origin: gateway.origin })).status).toBe(403);
    expect((await post('/admin/api/spending', { action: 'pause' }, { cookie, origin: gateway.origin, 'x-csrf-token': 'A'.repeat(43) })).status).toBe(403);
    const evil = await post('/admin/api/spending', { action: 'pause' }, { cookie, origin: 'https://evil.example', 'x-csrf-token': csrf });
    expect(evil.status).toBe(403);
    expect((await spending()).paused).toBe(false);
  });

  it('pauses every model call from an admin session, as operator budget pause does, and answers the waiting message once on resume', async () => {
    const { cookie, csrf } = await logIn();
    const session = { cookie, origin: gateway.origin, 'x-csrf-token': csrf };
    const paused = await post('/admin/api/spending', { action: 'pause' }, session);
    expect(paused.status).toBe(200);
    expect(JSON.parse(paused.body)).toEqual({ ok: true, text: 'Paused all model calls: running turns stop at their next call, and messages wait until they resume (operator budget resume, or /budget resume in a chat).' });
    expect((await spending()).paused).toBe(true);
    // The command line asks the same gateway, and sees it.
    expect((await runOperator(['budget', 'status'], { HOME: fakes.home, OPERATOR_HOME: fakes.home })).stdout).toMatch(/^Model calls are paused/);

    const before = fakes.model.requests.length;
    say(member, 'are you there?');
    await findBotMessage(fakes.telegram, gateway, member.id, pausedReply, wait);
    expect(fakes.model.requests).toHaveLength(before);

    fakes.model.setDefault({ text: 'Answered after the console resumed.', usage });
    const resumed = await post('/admin/api/spending', { action: 'resume' }, session);
    expect(JSON.parse(resumed.body)).toEqual({ ok: true, text: 'Model calls go on; the messages that waited are answered now.' });
    await findFinalBotMessage(fakes.telegram, gateway, member.id, 'Answered after the console resumed.', wait);
    fakes.model.enqueue({ text: 'The next answer.', usage });
    say(member, 'and now?');
    await findFinalBotMessage(fakes.telegram, gateway, member.id, 'The next answer.', wait);
    expect(fakes.telegram.messages(member.id).filter((message) => message.text === 'Answered after the console resumed.')).toHaveLength(1);
    const after = await spending();
    expect(after.paused).toBe(false);
    expect(after.spent.day).toBeCloseTo(0.09);
  });

  it.each([
    ['an unknown action', { action: 'stop' }, /^invalid request: action: /],
    ['an extra field', { action: 'pause', by: 'me' }, /^invalid request: body: .*by/],
    ['no action', {}, /^invalid request: action: /],
    ['a body that is not JSON', 'pause', /^the body must be JSON$/],
  ])('refuses %s with 400 and the reason, changing nothing', async (_case, body, error) => {
    const response = await post('/admin/api/spending', body, bearer());
    expect(response.status).toBe(400);
    expect(JSON.parse(response.body).error).toMatch(error);
    expect((await spending()).paused).toBe(false);
  });

  it("shows a conversation's spend today against its caps: its own, and a person's who is not an admin", async () => {
    // The member's two answers, $0.045 each; the owner has not written.
    const memberPage = JSON.parse((await get(`/admin/api/conversation?key=${encodeURIComponent(`telegram:dm:${member.id}`)}`, bearer())).body) as { spending: { lines: { what: string; spent: number; cap: number }[]; uncapped: string[] } };
    expect(memberPage.spending.lines).toEqual([
      { what: 'this conversation', spent: expect.closeTo(0.09, 6), cap: 3 },
      { what: `person telegram:${member.id}`, spent: expect.closeTo(0.09, 6), cap: 1 },
    ]);
    expect(memberPage.spending.uncapped).toEqual([]);
    const ownerPage = JSON.parse((await get(`/admin/api/conversation?key=${encodeURIComponent(`telegram:dm:${owner.id}`)}`, bearer())).body) as { spending: { lines: { what: string }[]; uncapped: string[] } };
    expect(ownerPage.spending.lines.map((line) => line.what)).toEqual(['this conversation']);
    expect(ownerPage.spending.uncapped).toEqual([`person telegram:${owner.id} (an admin)`]);
  });
});

whenChromiumInstalled("the console's spending in a browser", "the console's Spending card test", () => {
  describe("the console's spending in a browser", () => {
    let browser: Browser;

    beforeAll(async () => {
      browser = await launchChromium();
    });

    afterAll(async () => {
      await browser?.close();
    });

    it('shows the Spending card on the Usage page, and pauses and resumes with its buttons', async () => {
      const link = (await runOperator(['admin', 'url'], { HOME: fakes.home, OPERATOR_HOME: fakes.home })).stdout.trim();
      const page = await browser.newPage();
      await page.goto(link);
      await page.waitForURL(`${gateway.origin}/admin`);
      await page.locator('a[data-page="usage"]').click();
      await page.locator('#spending-state', { hasText: 'model calls go on' }).waitFor();
      expect(await page.locator('#spending-gateway').textContent()).toMatch(/^The gateway spent \$0\.\d+ today \(\d{4}-\d\d-\d\d\) and \$0\.\d+ this month/);
      expect(await page.locator('#spending-caps').textContent()).toContain('each conversation');
      page.once('dialog', (dialog) => void dialog.accept());
      await page.locator('#spending button', { hasText: 'Pause' }).click();
      await page.locator('#spending-state', { hasText: 'model calls paused' }).waitFor();
      expect(await page.locator('#spending-answer').textContent()).toMatch(/^Paused all model calls/);
      expect((await spending()).paused).toBe(true);
      await page.locator('#spending button', { hasText: 'Resume' }).click();
      await page.locator('#spending-state', { hasText: 'model calls go on' }).waitFor();
      expect((await spending()).paused).toBe(false);

      await page.goto(`${gateway.origin}/admin#conversation/${encodeURIComponent(`telegram:dm:${member.id}`)}`);
      await page.locator('#conversation-spending').waitFor();
      expect(await page.locator('#conversation-spend').textContent()).toContain(`person telegram:${member.id}`);
      await page.close();
    });
  });
});

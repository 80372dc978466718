/**
 * Request bodies against the real gateway process: a huge body (50 MiB, streamed in 64 KiB writes
 * without a Content-Length, as a stranger would send it) to every route that takes one is
 * answered 413 (the Telegram webhook with the right secret, the control route with its token, the
 * web login, the web chat with a session, the Slack route unsigned and signed), one sent without
 * the secret, the token or the session, or to a path no route serves, is refused without being
 * read; and the process neither holds the bodies (over three bodies to the same route its resident
 * memory, from /proc, grows by less than one body, where holding them would take all three) nor stops
 * answering. Slack's timestamps are refused more than five minutes off either way.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { urlVerification } from '../fakes/fake-slack-events.ts';
import { freePort } from '../helpers/free-port.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { startSlackGatewayFakes, type SlackGatewayFakes } from '../helpers/slack-gateway-fakes.ts';
import { startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const mebibyte = 1024 * 1024;
const bodyBytes = 50 * mebibyte;
/** How often each case posts its huge body. */
const timesEach = 3;

/** Resident memory of a process, in bytes (VmRSS in /proc). */
function rss(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((entry) => entry.startsWith('VmRSS:'))!;
  return Number(line.replace(/\D+/g, '')) * 1024;
}

/** What became of a huge POST: the status (0 when the connection ended without one). */
interface HugeResult {
  status: number;
}

/** POSTs `bodyBytes` of spaces in 64 KiB writes, chunked (no Content-Length); resolves once answered. */
function postHuge(url: string, headers: Record<string, string>): Promise<HugeResult> {
  return new Promise((resolve) => {
    const request = httpRequest(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (response) => {
      response.resume();
      resolve({ status: response.statusCode ?? 0 });
    });
    // The server may close the connection once it has answered: the rest of the body is not wanted.
    request.on('error', () => resolve({ status: 0 }));
    const piece = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const write = () => {
      while (sent < bodyBytes) {
        sent += piece.length;
        if (!request.write(piece)) return void request.once('drain', write);
      }
      request.end();
    };
    write();
  });
}

/** Posts a huge body to each case in turn, {@link timesEach} times: the answers, and the process's resident memory before and after. */
async function postEach(gateway: StartedGateway, cases: readonly { name: string; path: string; headers: Record<string, string> }[]) {
  const pid = gateway.child.pid!;
  const results: { name: string; status: number; before: number; after: number }[] = [];
  for (const { name, path, headers } of cases) {
    // Three times over: what the server reads and drops while it discards the rest of a body is
    // garbage that can sit in the resident figure for a while (up to about 25 MiB here, and it
    // comes back down), while a held body would add its 50 MiB every time (150 MiB in all).
    const before = rss(pid);
    let status = 0;
    for (let time = 0; time < timesEach; time++) ({ status } = await postHuge(`${gateway.origin}${path}`, headers));
    results.push({ name, status, before, after: rss(pid) });
  }
  return results;
}

/** One line per result, in MiB, for the test's annotations (the figures docs/security.md quotes). */
function describeResults(results: readonly { name: string; status: number; before: number; after: number }[]): string {
  const mib = (bytes: number) => (bytes / mebibyte).toFixed(1);
  return results.map((result) => `${result.name}: ${result.status}, RSS ${mib(result.before)} -> ${mib(result.after)} MiB`).join('; ');
}

describe('request body limits in the gateway process', () => {
  let telegramFakes: TelegramGatewayFakes;
  let slackFakes: SlackGatewayFakes;
  let telegramGateway: StartedGateway;
  let slackGateway: StartedGateway;
  const secret = 'limits-secret-7-webhook';
  const webToken = 'body-limits-web-token-0123456789abcdef';

  beforeAll(async () => {
    telegramFakes = await startTelegramGatewayFakes('operator-body-limits-');
    // The web chat asks for a login here too, so its login route is one of those tested.
    writeFileSync(join(telegramFakes.home, 'operator.json'), JSON.stringify({ web: { login: 'always' } }));
    const port = await freePort();
    telegramGateway = await startGateway({
      home: telegramFakes.home,
      port,
      env: { ...telegramFakes.env([]), TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/webhooks/telegram`, TELEGRAM_WEBHOOK_SECRET: secret, OPERATOR_WEB_TOKEN: webToken },
    });
    slackFakes = await startSlackGatewayFakes('operator-body-limits-slack-');
    slackGateway = await slackFakes.startGateway([]);
    // What loads in the background after start-up (the model SDK, the renderers) settles first,
    // so it does not count as growth below.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
  });

  afterAll(async () => {
    await telegramGateway?.stop();
    await slackGateway?.stop();
    await telegramFakes?.close();
    await slackFakes?.close();
  });

  it('answers 413 on the Telegram webhook, the control route, the login and the web chat, refuses unread without credentials, and holds none of it', async ({ annotate }) => {
    const origin = telegramGateway.origin;
    const { token } = JSON.parse(readFileSync(join(telegramFakes.home, 'gateway.json'), 'utf8')) as { token: string };
    const login = await fetch(`${origin}/web/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: webToken }) });
    expect(login.status).toBe(200);
    const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
    // Each route once with a small body first, so what it loads on first use is not counted below.
    const telegramHeaders = { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': secret };
    expect((await fetch(`${origin}/webhooks/telegram`, { method: 'POST', headers: telegramHeaders, body: '{"update_id": 1}' })).status).toBe(200);
    expect((await fetch(`${origin}/control/schedule`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: '{}' })).status).toBe(400);
    expect((await fetch(`${origin}/web/messages`, { method: 'POST', headers: { cookie, 'content-type': 'application/json' }, body: '{}' })).status).toBe(400);
    // The refusal without a session and the unknown path too: what they load on first use is not counted below.
    expect((await fetch(`${origin}/web/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(401);
    expect((await fetch(`${origin}/nowhere`, { method: 'POST', headers: { cookie }, body: '{}' })).status).toBe(404);

    const results = await postEach(telegramGateway, [
      { name: 'telegram webhook, right secret', path: '/webhooks/telegram', headers: { 'x-telegram-bot-api-secret-token': secret } },
      { name: 'telegram webhook, wrong secret', path: '/webhooks/telegram', headers: { 'x-telegram-bot-api-secret-token': 'wrong' } },
      { name: 'control, right token', path: '/control/schedule', headers: { authorization: `Bearer ${token}` } },
      { name: 'web login', path: '/web/login', headers: {} },
      { name: 'web chat message, logged in', path: '/web/messages', headers: { cookie } },
      { name: 'web chat message, no session', path: '/web/messages', headers: {} },
      { name: 'unknown path, logged in', path: '/nowhere', headers: { cookie } },
    ]);
    await annotate(describeResults(results));
    expect(results.map((result) => result.status)).toEqual([413, 401, 413, 413, 413, 401, 404]);
    for (const result of results) expect(result.after - result.before, result.name).toBeLessThan(bodyBytes);

    // Still answering, and a body that is not an update is a 400, not a crash.
    expect((await fetch(`${origin}/webhooks/telegram`, { method: 'POST', headers: telegramHeaders, body: 'not json at all' })).status).toBe(400);
    expect((await fetch(`${origin}/healthz`)).status).toBe(200);
    expect(telegramGateway.child.exitCode).toBeNull();
    const output = telegramGateway.output.all();
    expect(output).toContain('telegram: webhook request refused: its body is too large');
    expect(output).toContain('telegram: webhook request refused: the body is not JSON');
    expect(output).not.toContain(secret);
    expect(output).not.toContain(webToken);
  });

  it('answers 413 on the Slack route unsigned or signed, before checking the signature, and holds none of it', async ({ annotate }) => {
    // A first request loads what the route uses (its answer is a refused signature).
    expect((await slackFakes.post(urlVerification('warm-up'), { signWith: 'wrong' })).status).toBe(401);
    const timestamp = String(Math.floor(Date.now() / 1000));
    const results = await postEach(slackGateway, [
      { name: 'slack, unsigned', path: '/webhooks/slack', headers: {} },
      { name: 'slack, signed (badly)', path: '/webhooks/slack', headers: { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': 'v0=00' } },
      { name: 'unknown path', path: '/webhooks/nowhere', headers: {} },
    ]);
    await annotate(describeResults(results));
    expect(results.map((result) => result.status)).toEqual([413, 413, 404]);
    for (const result of results) expect(result.after - result.before, result.name).toBeLessThan(bodyBytes);
    expect((await fetch(`${slackGateway.origin}/healthz`)).status).toBe(200);
    expect(slackGateway.output.all()).toContain('slack: request refused: its body is too large');
  });

  it('refuses Slack requests signed more than five minutes ahead or behind, and takes one 200 s ahead', async () => {
    const { slack } = slackFakes;
    const now = Math.floor(Date.now() / 1000);
    const verify = (challenge: string, offset: number) => slackFakes.post(urlVerification(challenge), { timestampSeconds: now + offset });
    // Past the five minutes by more than the seconds a busy machine may take between reading the
    // clock here and in the gateway (301 s ahead turned into 300 once, and was taken).
    expect((await verify('ahead-330', 330)).status).toBe(401);
    expect((await verify('behind-330', -330)).status).toBe(401);
    const ahead = await verify('ahead-200', 200);
    expect(ahead.status).toBe(200);
    expect(ahead.body).toContain('ahead-200');
    // A message event, the gateway's real work, is taken with a clock 200 s behind Slack's too.
    const event = slack.envelope(slack.personMessage({ channel: 'D0DIRECT1', text: 'from a clock a little ahead' }));
    expect((await slackFakes.post(event, { timestampSeconds: now + 200 })).status).toBe(200);
    const output = slackGateway.output.all();
    expect(output).toContain('X-Slack-Request-Timestamp is more than five minutes in the future');
    expect(output).toContain('X-Slack-Request-Timestamp is more than five minutes old');
    expect(output).not.toContain(slack.signingSecret);
  });
});

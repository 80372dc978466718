/**
 * Request bodies on every route of the gateway's hono app (`createGatewayApp`), with the real
 * adapters (Telegram by webhook and Slack over their fakes, the web chat), the real control route
 * and the real web login in front: each route that takes a body reads at most its limit from
 * `bodyLimits` and answers 413, and a request refused for its secret, its token, its session or
 * its path has no byte of its body read. Bodies are streams that count what was pulled from them,
 * so "stops reading at the limit" is measured, not assumed; they are chunked (no Content-Length),
 * as a stranger would send them.
 */
import type { Hono } from 'hono';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSlackChannel } from '../../src/channels/slack/index.ts';
import { createTelegramChannel } from '../../src/channels/telegram/index.ts';
import type { ChannelAdapter, ChannelHandlers, InboundMessage } from '../../src/channels/types.ts';
import { createWebChannel } from '../../src/channels/web/index.ts';
import { bodyLimits } from '../../src/core/body-limits.ts';
import { createControlRoutes } from '../../src/gateway/control/control-route.ts';
import { webLogin } from '../../src/gateway/http/web-login.ts';
import { createGatewayApp } from '../../src/gateway/server.ts';
import { encodeRequest, signature } from '../fakes/fake-slack-events.ts';
import { startFakeSlackServer, type FakeSlack } from '../fakes/fake-slack-server.ts';
import { startFakeTelegramServer, type FakeTelegram } from '../fakes/fake-telegram-server.ts';

const hugeBytes = 50 * 1024 * 1024;
const chunkBytes = 64 * 1024;
const webhookSecret = 'body-limits-secret_1';
const controlToken = 'Y29udHJvbC10b2tlbi1mb3ItYm9keS1saW1pdHMtdGVzdA';
const webToken = 'd2ViLXRva2VuLWZvci1ib2R5LWxpbWl0cy10ZXN0LTAx';
const port = 8787;

/** A body of `total` spaces streamed in 64 KiB chunks, pulled only when the reader asks; `pulled` counts what it handed out. */
function countingBody(total = hugeBytes): { stream: ReadableStream<Uint8Array>; pulled(): number } {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (pulled >= total) return controller.close();
        const size = Math.min(chunkBytes, total - pulled);
        pulled += size;
        controller.enqueue(new Uint8Array(size).fill(0x20));
      },
    },
    // Nothing is pulled ahead of a read: `pulled` is exactly what the route read.
    { highWaterMark: 0 },
  );
  return { stream, pulled: () => pulled };
}

let telegram: FakeTelegram;
let slack: FakeSlack;
let adapters: ChannelAdapter[];
let app: Hono;
let cookie: string;
const logs: string[] = [];
const messages: InboundMessage[] = [];

/** POSTs a counted huge body to `path`; the status, what was pulled and the answer's JSON error (if any). */
async function postHuge(path: string, headers: Record<string, string> = {}, total = hugeBytes): Promise<{ status: number; pulled: number; error?: string }> {
  const body = countingBody(total);
  const response = await app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: body.stream, duplex: 'half' } as RequestInit);
  const text = await response.text();
  const error = /^\{/.test(text) ? (JSON.parse(text) as { error?: string }).error : undefined;
  return { status: response.status, pulled: body.pulled(), ...(error !== undefined ? { error } : {}) };
}

/** Asserts a 413 that read past the limit by at most one chunk, far from the whole body. */
function expectStoppedAt(result: { status: number; pulled: number; error?: string }, limit: number): void {
  expect(result.status).toBe(413);
  expect(result.pulled).toBeGreaterThan(limit);
  expect(result.pulled).toBeLessThanOrEqual(limit + chunkBytes);
  expect(result.error).toContain(`at most ${limit} bytes`);
}

beforeAll(async () => {
  telegram = await startFakeTelegramServer();
  slack = await startFakeSlackServer();
  const log = (line: string) => void logs.push(line);
  adapters = [
    createTelegramChannel({ token: telegram.token, apiRoot: telegram.apiRoot, webhook: { url: 'https://bot.example.com/webhooks/telegram', secret: webhookSecret }, log }),
    createSlackChannel({ botToken: slack.bot.token, signingSecret: slack.signingSecret, apiUrl: slack.apiUrl, log }),
    createWebChannel({ login: true, log }),
  ];
  const handlers: ChannelHandlers = { onMessage: async (message) => void messages.push(message), onAction: async () => undefined };
  for (const adapter of adapters) await adapter.start(handlers);
  const control = createControlRoutes({
    token: controlToken,
    ready: () => true,
    control: () => {
      throw new Error('no request in this test gets this far');
    },
    budget: () => {
      throw new Error('no request in this test gets this far');
    },
    log,
  });
  app = createGatewayApp(adapters, () => ({ state: 'ready', channels: [], liveSessions: 0 }), [...control], [webLogin({ token: webToken, port })]);
  const login = await app.request('/web/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: webToken }) });
  expect(login.status).toBe(200);
  cookie = login.headers.get('set-cookie')!.split(';')[0]!;
});

afterAll(async () => {
  for (const adapter of adapters ?? []) await adapter.stop();
  await telegram?.close();
  await slack?.close();
});

describe('the Telegram webhook', () => {
  const path = '/webhooks/telegram';

  it('checks the secret before reading a byte (401), then stops reading a huge update at its limit (413) and logs it', async () => {
    const wrong = await postHuge(path, { 'x-telegram-bot-api-secret-token': 'not-the-secret' });
    expect(wrong).toMatchObject({ status: 401, pulled: 0 });
    expect((await postHuge(path)).pulled).toBe(0);
    expectStoppedAt(await postHuge(path, { 'x-telegram-bot-api-secret-token': webhookSecret }), bodyLimits.telegramWebhook);
    expect(logs).toContain(`telegram: webhook request refused: its body is too large (over ${bodyLimits.telegramWebhook} bytes)`);
  });

  it('refuses a body that says it is too large by its Content-Length without reading it', async () => {
    const result = await postHuge(path, { 'x-telegram-bot-api-secret-token': webhookSecret, 'content-length': String(hugeBytes) });
    expect(result).toMatchObject({ status: 413, pulled: 0 });
  });

  it('answers 400 to a body that is not an update, saying why without echoing it, and still takes the next update', async () => {
    const post = (body: string) => app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': webhookSecret }, body });
    const cases: [string, string][] = [
      ['{"update_id": 1, "message": {"text": "secret diary', 'the body is not JSON'],
      ['[1, 2, 3]', 'the body is not a JSON object'],
      ['null', 'the body is not a JSON object'],
      ['{"message": {"text": "private words"}}', 'no integer update_id'],
    ];
    for (const [body, reason] of cases) {
      const response = await post(body);
      expect(response.status, body).toBe(400);
      expect(await response.text(), body).toContain(reason);
    }
    expect(logs.join('\n')).not.toMatch(/secret diary|private words/);
    const update = telegram.textMessage({ chatId: 4242, text: 'a real one after the junk' });
    expect((await post(JSON.stringify(update))).status).toBe(200);
    expect(messages.map((message) => message.text)).toContain('a real one after the junk');
  });

  it('takes an update just under its limit whole (the bytes read are what grammy gets)', async () => {
    const update = telegram.textMessage({ chatId: 4243, text: 'x' });
    const text = `near the limit ${'é'.repeat(200_000)}`;
    const body = JSON.stringify({ ...update, message: { ...update.message, text } });
    expect(Buffer.byteLength(body)).toBeLessThan(bodyLimits.telegramWebhook);
    const response = await app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': webhookSecret }, body });
    expect(response.status).toBe(200);
    expect(messages.find((message) => message.address.conversationId === '4243')?.text).toBe(text);
  });
});

describe('the Slack route', () => {
  const path = '/webhooks/slack';

  it('stops reading a huge body at its limit before any signature work, unsigned or signed (413)', async () => {
    expectStoppedAt(await postHuge(path), bodyLimits.slackWebhook);
    const timestamp = String(Math.floor(Date.now() / 1000));
    expectStoppedAt(await postHuge(path, { 'x-slack-request-timestamp': timestamp, 'x-slack-signature': 'v0=00' }), bodyLimits.slackWebhook);
    expect(logs).toContain(`slack: request refused: its body is too large (over ${bodyLimits.slackWebhook} bytes)`);
  });

  it('takes a signed event under its limit', async () => {
    const { rawBody, contentType } = encodeRequest(slack.envelope(slack.personMessage({ channel: 'D0DIRECT1', text: 'hello under the limit' })));
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = { 'content-type': contentType, 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature(slack.signingSecret, timestamp, rawBody) };
    expect((await app.request(path, { method: 'POST', headers, body: rawBody })).status).toBe(200);
    expect(messages.map((message) => message.text)).toContain('hello under the limit');
  });
});

describe('the control routes', () => {
  it.each(['/control/schedule', '/control/budget'])('%s checks the token before reading a byte (401), then stops at its limit (413)', async (path) => {
    expect(await postHuge(path, { authorization: 'Bearer wrong' })).toMatchObject({ status: 401, pulled: 0 });
    expectStoppedAt(await postHuge(path, { authorization: `Bearer ${controlToken}` }), bodyLimits.control);
  });
});

describe('the web chat and its login', () => {
  it('stops reading a huge login body at its limit (413)', async () => {
    expectStoppedAt(await postHuge('/web/login'), bodyLimits.webLogin);
    expectStoppedAt(await postHuge('/web/login', { 'content-type': 'application/x-www-form-urlencoded' }), bodyLimits.webLogin);
  });

  it('reads nothing of a message or a press without a session (401), and stops at its limit with one (413)', async () => {
    for (const path of ['/web/messages', '/web/actions']) {
      expect(await postHuge(path), path).toMatchObject({ status: 401, pulled: 0 });
      expectStoppedAt(await postHuge(path, { cookie }), bodyLimits.webChat);
    }
  });
});

describe('paths no route serves', () => {
  it('are answered without a byte of their body read', async () => {
    // Behind the login (401), and where the login does not apply (404).
    for (const path of ['/nowhere', '/web/upload', '/webhooks/nowhere', '/control/nothing', '/webhooks/telegram/extra']) {
      const result = await postHuge(path, { 'x-telegram-bot-api-secret-token': webhookSecret });
      expect(result.pulled, path).toBe(0);
      expect([401, 404], path).toContain(result.status);
    }
    expect((await postHuge('/nowhere', { cookie })).status).toBe(404);
    expect((await postHuge('/nowhere', { cookie })).pulled).toBe(0);
  });
});

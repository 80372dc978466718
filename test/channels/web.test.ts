/**
 * The web chat channel: HTTP-level tests against the routes served by hono on a real port, and a
 * real browser (Debian's chromium through playwright-core) using the page. Without
 * /usr/bin/chromium the browser suite is reported as skipped, and fails under CI (`CI` set),
 * where .ci/run installs it.
 */
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DeliveryError } from '../../src/channels/types.ts';
import { launchChromium, whenChromiumInstalled } from '../helpers/chromium.ts';
import { createStepper, openSse, startWebHarness } from '../helpers/web-harness.ts';
import type { SseStream, WebHarness } from '../helpers/web-harness.ts';

const newClientId = () => randomBytes(16).toString('hex');
const address = (clientId: string) => ({ platform: 'web', conversationId: clientId });

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

describe('web chat: page', () => {
  it('serves one self-contained page with a strict content security policy', async () => {
    const { origin } = await start();
    const response = await fetch(`${origin}/`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    const policy = response.headers.get('content-security-policy') ?? '';
    expect(policy).toContain("default-src 'none'");
    expect(policy).toMatch(/script-src 'sha256-[A-Za-z0-9+/=]+'/);
    const html = await response.text();
    expect(html).toContain('<textarea id="input"');
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
  });

  it('mounts under a base path', async () => {
    const { origin } = await start({ channel: { basePath: '/chat/' } });
    expect((await fetch(`${origin}/chat`)).status).toBe(200);
    const html = await (await fetch(`${origin}/chat`)).text();
    expect(html).toContain('{"base":"/chat"}');
    const clientId = newClientId();
    expect((await post(origin, '/chat/web/messages', { clientId, id: 'm1', text: 'hi' })).status).toBe(202);
  });
});

describe('web chat: messages in', () => {
  it('hands a message over as a direct, mentioned message of the browser and answers 202', async () => {
    const { origin, messages } = await start();
    const clientId = newClientId();
    const response = await post(origin, '/web/messages', { clientId, id: 'm-1', text: 'hello there' });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual({ accepted: true, id: 'm-1' });
    expect(messages).toHaveLength(1);
    expect(messages[0]).toMatchObject({
      id: 'm-1',
      dedupeKey: `web:${clientId}:m-1`,
      sessionKey: `web:${clientId}`,
      address: { platform: 'web', conversationId: clientId },
      scope: 'dm',
      sender: { id: clientId },
      text: 'hello there',
      attachments: [],
      mentioned: true,
    });
    expect(messages[0]?.command).toBeUndefined();
  });

  it('does not wait for the answer', async () => {
    const stepper = createStepper();
    const { origin, messages } = await start({ pace: stepper.pace });
    const response = await post(origin, '/web/messages', { clientId: newClientId(), id: 'a', text: 'slow' });
    expect(response.status).toBe(202);
    expect(messages).toHaveLength(1);
    stepper.release();
  });

  it('answers 503 to a message the gateway could not take; the retry with the same id is taken', async () => {
    const { origin, messages } = await start({ refuse: 1 });
    const body = { clientId: newClientId(), id: 'later', text: 'take me' };
    const refused = await post(origin, '/web/messages', body);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ error: expect.stringContaining('cannot take messages') });
    expect((await post(origin, '/web/messages', body)).status).toBe(202);
    expect(messages.map((message) => message.dedupeKey)).toEqual([messages[0]!.dedupeKey, messages[0]!.dedupeKey]);
  });

  it('keeps the dedupe key of a retried POST, so the answer comes once', async () => {
    const { origin, messages, channel } = await start();
    const clientId = newClientId();
    const stream = await events(origin, clientId);
    const body = { clientId, id: 'retry-1', text: 'once' };
    expect((await post(origin, '/web/messages', body)).status).toBe(202);
    expect((await post(origin, '/web/messages', body)).status).toBe(202);
    await harness?.idle();
    expect(messages.map((message) => message.dedupeKey)).toEqual([`web:${clientId}:retry-1`, `web:${clientId}:retry-1`]);
    await stream.next((event) => event.type === 'update' && event.data.text === 'echo: once');
    expect(stream.events.filter((event) => event.type === 'message')).toHaveLength(1);
    expect(channel.connectionCount(clientId)).toBe(1);
  });

  it('parses /commands', async () => {
    const { origin, messages } = await start();
    await post(origin, '/web/messages', { clientId: newClientId(), id: 'c', text: '/Model  opus fast' });
    expect(messages[0]?.command).toEqual({ name: 'model', args: 'opus fast' });
  });

  it.each([
    ['bad JSON', '{"clientId":', /not valid JSON/],
    ['a JSON array', '[]', /expected object/],
    ['a missing clientId', { id: 'x', text: 'hi' }, /clientId is required/],
    ['a missing text', { clientId: 'a'.repeat(32), id: 'x' }, /text is required/],
    ['a missing id', { clientId: 'a'.repeat(32), text: 'hi' }, /id is required/],
    ['an empty text', { clientId: 'a'.repeat(32), id: 'x', text: '   ' }, /text must not be empty/],
    ['a number as text', { clientId: 'a'.repeat(32), id: 'x', text: 5 }, /text must be a string/],
    ['an unknown clientId format', { clientId: 'short', id: 'x', text: 'hi' }, /clientId must be 16 to 64/],
    ['a clientId with odd characters', { clientId: '../../etc/passwd/abcdef', id: 'x', text: 'hi' }, /clientId must be 16 to 64/],
    ['an id with a colon', { clientId: 'a'.repeat(32), id: 'a:b', text: 'hi' }, /id must be 1 to 64/],
  ])('answers 400 to %s', async (_name, body, reason) => {
    const { origin, messages } = await start();
    const response = await post(origin, '/web/messages', body);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toMatch(/application\/json/);
    expect(((await response.json()) as { error: string }).error).toMatch(reason);
    expect(messages).toHaveLength(0);
  });

  it('refuses a body that is not declared as JSON (a cross-site form) and one that is too large', async () => {
    const { origin } = await start();
    const form = await post(origin, '/web/messages', JSON.stringify({ clientId: 'a'.repeat(32), id: 'x', text: 'hi' }), 'text/plain');
    expect(form.status).toBe(415);
    const large = await post(origin, '/web/messages', { clientId: 'a'.repeat(32), id: 'x', text: 'x'.repeat(600_000) });
    expect(large.status).toBe(413);
  });

  it('answers 503 while the channel is not started', async () => {
    const { origin } = await start({ notStarted: true });
    const response = await post(origin, '/web/messages', { clientId: newClientId(), id: 'x', text: 'hi' });
    expect(response.status).toBe(503);
    expect(((await response.json()) as { error: string }).error).toMatch(/not running/);
  });
});

describe('web chat: events out', () => {
  it('streams message, update and typing events in the SSE format', async () => {
    const { origin, channel } = await start();
    const clientId = newClientId();
    const stream = await events(origin, clientId);
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await channel.typing(address(clientId));
    const { ids } = await channel.send(address(clientId), { text: '**hi**', buttons: [[{ label: 'OK', data: 'ok' }]] });
    await channel.edit(address(clientId), ids[0] ?? '', { text: '**hi** there' });
    await stream.next((event) => event.type === 'update');
    expect(stream.events.map((event) => event.type)).toEqual(['ready', 'typing', 'message', 'update']);
    expect(stream.events[2]?.data).toEqual({ id: ids[0], text: '**hi**', html: '<p><strong>hi</strong></p>', buttons: [[{ label: 'OK', data: 'ok' }]] });
    expect(stream.events[3]?.data).toEqual({ id: ids[0], text: '**hi** there', html: '<p><strong>hi</strong> there</p>' });
    expect(stream.text()).toContain(`event: message\ndata: {"id":"${ids[0]}","text":"**hi**","html":"<p><strong>hi</strong></p>","buttons":[[{"label":"OK","data":"ok"}]]}\n\n`);
    expect(stream.text()).toContain('event: typing\ndata: {}\n\n');
    expect(stream.text().startsWith('retry: ')).toBe(true);
  });

  it('sends to every open page of the client and to no other client', async () => {
    const { origin, channel } = await start();
    const [alice, bob] = [newClientId(), newClientId()];
    const first = await events(origin, alice);
    const second = await events(origin, alice);
    const other = await events(origin, bob);
    await channel.send(address(alice), { text: 'for alice' });
    await first.next((event) => event.type === 'message');
    await second.next((event) => event.type === 'message');
    await channel.send(address(bob), { text: 'for bob' });
    await other.next((event) => event.type === 'message');
    expect(other.events.filter((event) => event.type === 'message').map((event) => event.data.text)).toEqual(['for bob']);
    expect(first.events.filter((event) => event.type === 'message').map((event) => event.data.text)).toEqual(['for alice']);
  });

  it('buffers what is sent while no page is connected (edits folded in, typing dropped) and flushes on connect', async () => {
    const { origin, channel } = await start();
    const clientId = newClientId();
    const { ids } = await channel.send(address(clientId), { text: 'draft', buttons: [[{ label: 'A', data: 'a' }]] });
    await channel.edit(address(clientId), ids[0] ?? '', { text: 'draft grows' });
    await channel.edit(address(clientId), ids[0] ?? '', { text: 'final answer' });
    await channel.typing(address(clientId));
    await channel.send(address(clientId), { text: 'second' });
    expect(channel.bufferedCount(clientId)).toBe(2);
    const stream = await events(origin, clientId);
    await stream.next((event) => event.data.text === 'second');
    expect(stream.events.map((event) => [event.type, event.data])).toEqual([
      ['ready', {}],
      ['message', { id: ids[0], text: 'final answer', html: '<p>final answer</p>', buffered: true }],
      ['message', { id: expect.any(String), text: 'second', html: '<p>second</p>', buffered: true }],
    ]);
    expect(channel.bufferedCount(clientId)).toBe(0);
  });

  it('bounds the buffer per client and the number of buffered clients', async () => {
    const { channel } = await start({ channel: { bufferLimit: 3, maxBufferedClients: 2 } });
    const clientId = newClientId();
    for (let index = 1; index <= 5; index++) await channel.send(address(clientId), { text: `m${index}` });
    expect(channel.bufferedCount(clientId)).toBe(3);
    const [second, third] = [newClientId(), newClientId()];
    await channel.send(address(second), { text: 'x' });
    await channel.send(address(third), { text: 'y' });
    expect(channel.bufferedCount(clientId)).toBe(0);
    expect(channel.bufferedCount(second)).toBe(1);
    expect(channel.bufferedCount(third)).toBe(1);
  });

  it('keeps streams alive with heartbeat comments', async () => {
    const { origin } = await start({ channel: { heartbeatMs: 20 } });
    const stream = await events(origin, newClientId());
    await vi.waitFor(() => expect(stream.comments).toContain('heartbeat'), { timeout: 10_000, interval: 5 });
  });

  it('forgets a connection the page closed, and ends every stream on stop', async () => {
    const { origin, channel } = await start();
    const clientId = newClientId();
    const leaving = await events(origin, clientId);
    const staying = await events(origin, clientId);
    expect(channel.connectionCount(clientId)).toBe(2);
    leaving.close();
    await vi.waitFor(() => expect(channel.connectionCount(clientId)).toBe(1), { timeout: 10_000, interval: 5 });
    await channel.stop();
    expect(channel.connectionCount()).toBe(0);
    await vi.waitFor(() => expect(staying.ended).toBe(true), { timeout: 10_000, interval: 5 });
    expect((await fetch(`${origin}/web/events?clientId=${clientId}`)).status).toBe(503);
  });

  it('shows a message sent from one tab in the other tabs of the same browser', async () => {
    const { origin } = await start();
    const clientId = newClientId();
    const otherTab = await events(origin, clientId);
    await post(origin, '/web/messages', { clientId, id: 'tab-1', text: 'from tab one' });
    const event = await otherTab.next((item) => item.type === 'user');
    expect(event.data).toEqual({ id: 'tab-1', text: 'from tab one' });
  });

  it('answers 400 to an event stream or history without a valid clientId', async () => {
    const { origin } = await start();
    for (const path of ['/web/events', '/web/events?clientId=bad', '/web/history', '/web/history?clientId=a%20b']) {
      const response = await fetch(`${origin}${path}`);
      expect(response.status, path).toBe(400);
      expect(((await response.json()) as { error: string }).error).toMatch(/clientId/);
    }
  });

  it('refuses an address that is not a web chat client', async () => {
    const { channel } = await start();
    await expect(channel.send({ platform: 'telegram', conversationId: '42' }, { text: 'x' })).rejects.toBeInstanceOf(DeliveryError);
    await expect(channel.send(address('short'), { text: 'x' })).rejects.toThrow(/not a web chat address/);
  });

  it('splits a text longer than maxLength, buttons on the last piece', async () => {
    const { channel } = await start({ channel: { bufferLimit: 10 } });
    const clientId = newClientId();
    const paragraph = `${'word '.repeat(12_000).trim()}\n\n`;
    const sent = await channel.send(address(clientId), { text: paragraph.repeat(3), buttons: [[{ label: 'B', data: 'b' }]] });
    expect(sent.ids.length).toBeGreaterThan(1);
  });
});

describe('web chat: buttons and history', () => {
  it('hands a button press over and shows the answer as a notice', async () => {
    const { origin, actions } = await start();
    const clientId = newClientId();
    const stream = await events(origin, clientId);
    const response = await post(origin, '/web/actions', { clientId, data: 'approve', messageId: 'b1-7', id: 'press-1' });
    expect(response.status).toBe(202);
    await vi.waitFor(() => expect(actions).toHaveLength(1));
    expect(actions[0]).toMatchObject({
      id: 'press-1',
      dedupeKey: `web:${clientId}:action:press-1`,
      sessionKey: `web:${clientId}`,
      address: { platform: 'web', conversationId: clientId },
      sender: { id: clientId },
      data: 'approve',
      messageId: 'b1-7',
    });
    const notice = await stream.next((event) => event.type === 'notice');
    expect(notice.data).toEqual({ text: 'pressed approve', messageId: 'b1-7' });
  });

  it('answers 400 to a button press without data', async () => {
    const { origin, actions } = await start();
    const response = await post(origin, '/web/actions', { clientId: newClientId(), messageId: 'x' });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toMatch(/data is required/);
    expect(actions).toHaveLength(0);
  });

  it('returns the conversation from the history handler', async () => {
    const { origin } = await start();
    const clientId = newClientId();
    await post(origin, '/web/messages', { clientId, id: 'h1', text: 'remember me' });
    await harness?.idle();
    const response = await fetch(`${origin}/web/history?clientId=${clientId}`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      messages: [
        { role: 'user', text: 'remember me' },
        { role: 'assistant', text: 'echo: remember me', html: '<p>echo: remember me</p>' },
      ],
    });
    const other = await fetch(`${origin}/web/history?clientId=${newClientId()}`);
    expect(await other.json()).toEqual({ messages: [] });
  });

  it('returns an empty history when the gateway has none', async () => {
    const { origin } = await start({ withoutHistory: true });
    expect(await (await fetch(`${origin}/web/history?clientId=${newClientId()}`)).json()).toEqual({ messages: [] });
  });
});

whenChromiumInstalled('web chat in chromium', 'the browser test of the web chat', () => {
  describe('web chat in chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => {
      await browser?.close();
    });

    async function openPage(origin: string): Promise<{ page: Page; problems: string[] }> {
      const page = await browser.newPage();
      // Fail with the locator's own message before the test's timeout.
      page.setDefaultTimeout(8_000);
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console: ${message.text()}`);
      });
      await page.goto(`${origin}/`);
      await page.locator('#status[data-state="connected"]').waitFor();
      return { page, problems };
    }

    const botTexts = (page: Page) => page.locator('.message.bot .body').allInnerTexts();

    it('chats: streamed reply grows and ends as the echo, buttons reach the handler, history on reload', async () => {
      const stepper = createStepper();
      const { origin, actions, channel } = await start({ pace: stepper.pace });
      const { page, problems } = await openPage(origin);
      const context = page.context();

      await page.locator('#input').fill('hello **web**');
      await page.keyboard.press('Enter');
      await page.locator('.message.user', { hasText: 'hello **web**' }).waitFor();
      await page.locator('#typing').waitFor({ state: 'visible' });

      // Each step of the echo waits for the test: the page shows every stage in place.
      const reply = page.locator('.message.bot').last();
      await vi.waitFor(() => expect(stepper.waiting).toBe(1));
      stepper.advance();
      await page.locator('.message.bot .body', { hasText: '…' }).waitFor();
      await vi.waitFor(() => expect(stepper.waiting).toBe(1));
      stepper.advance();
      await vi.waitFor(async () => expect(await reply.locator('.body').innerText()).toBe('echo: hell …'));
      // A person may send while the reply streams.
      expect(await page.locator('#input').isEnabled()).toBe(true);
      await vi.waitFor(() => expect(stepper.waiting).toBe(1));
      stepper.advance();
      await vi.waitFor(async () => expect(await reply.locator('.body').innerText()).toBe('echo: hello web …'));
      await vi.waitFor(() => expect(stepper.waiting).toBe(1));
      stepper.advance();
      await page.locator('.message.bot strong', { hasText: 'web' }).waitFor();
      await vi.waitFor(async () => expect(await reply.locator('.body').innerText()).toBe('echo: hello web'));
      expect(await page.locator('.message.bot').count()).toBe(1);

      stepper.release();
      await page.locator('#input').fill('buttons');
      await page.locator('button[type="submit"]').click();
      await page.locator('.message.bot button', { hasText: 'Yes' }).click();
      await page.locator('.notice', { hasText: 'pressed yes' }).waitFor();
      expect(actions).toHaveLength(1);
      expect(actions[0]?.data).toBe('yes');
      expect(actions[0]?.messageId).toBe(await page.locator('.message.bot').last().getAttribute('data-id'));

      await page.reload();
      await page.locator('#status[data-state="connected"]').waitFor();
      await page.locator('.message.bot', { hasText: 'Pick one:' }).waitFor();
      expect(await page.locator('.message.user .body').allInnerTexts()).toEqual(['hello **web**', 'buttons']);
      expect(await botTexts(page)).toEqual(['echo: hello web', 'Pick one:']);
      expect(await page.locator('.message.bot strong').innerText()).toBe('web');

      expect(channel.connectionCount()).toBe(1);
      await context.close();
      await vi.waitFor(() => expect(channel.connectionCount()).toBe(0), { timeout: 10_000, interval: 10 });
      expect(problems).toEqual([]);
    });

    it('shows a reply that arrived while the page was closed once, not twice', async () => {
      const { origin, channel } = await start();
      const { page, problems } = await openPage(origin);
      const clientId = await page.evaluate<string | null>("localStorage.getItem('operator.web.clientId')");
      await page.locator('#input').fill('first');
      await page.keyboard.press('Enter');
      await page.locator('.message.bot', { hasText: 'echo: first' }).waitFor();
      await page.goto('about:blank');
      await vi.waitFor(() => expect(channel.connectionCount()).toBe(0), { timeout: 10_000, interval: 10 });
      // Saved in the history and buffered too, like a gateway reply delivered while the page was away.
      harness?.transcripts.get(`web:${clientId}`)?.push({ role: 'assistant', text: 'while you were away' });
      await channel.send(address(clientId ?? ''), { text: 'while you were away' });
      await channel.send(address(clientId ?? ''), { text: 'an approval question', buttons: [[{ label: 'Approve', data: 'approve' }]] });
      await page.goto(`${origin}/`);
      await page.locator('.message.bot button', { hasText: 'Approve' }).waitFor();
      expect(await botTexts(page)).toEqual(['echo: first', 'while you were away', 'an approval question']);
      await page.close();
      expect(problems).toEqual([]);
    });
  });
});

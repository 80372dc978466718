/**
 * The fake Bot API itself, driven by a real grammy client and by plain HTTP: request encodings,
 * answers and errors as the real API gives them, the getUpdates long poll, files, webhooks.
 */
import { Bot, GrammyError, InputFile } from 'grammy';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startFakeTelegramServer, type FakeTelegram } from './fake-telegram-server.ts';

let telegram: FakeTelegram;
let bot: Bot;

beforeEach(async () => {
  telegram = await startFakeTelegramServer();
  bot = new Bot(telegram.token, { client: { apiRoot: telegram.apiRoot } });
});

afterEach(async () => {
  await telegram.close();
});

async function raw(method: string, init: RequestInit & { query?: string } = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${telegram.apiRoot}/bot${telegram.token}/${method}${init.query ? `?${init.query}` : ''}`, init);
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

describe('fake Telegram Bot API', () => {
  it('answers getMe for any token, by GET, JSON, form or query', async () => {
    expect(await bot.api.getMe()).toMatchObject({ id: telegram.bot.id, is_bot: true, username: 'operator_test_bot' });
    expect((await raw('getMe')).body).toMatchObject({ ok: true, result: { username: 'operator_test_bot' } });
    const viaQuery = await raw('sendMessage', { query: 'chat_id=5&text=from+a+query' });
    const viaForm = await raw('sendMessage', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'chat_id=5&text=from%20a%20form&reply_markup=%7B%22inline_keyboard%22%3A%5B%5B%7B%22text%22%3A%22A%22%2C%22callback_data%22%3A%22a%22%7D%5D%5D%7D' });
    expect(viaQuery.body).toMatchObject({ ok: true, result: { message_id: 1, chat: { id: 5, type: 'private' }, text: 'from a query' } });
    expect(viaForm.body).toMatchObject({ ok: true, result: { message_id: 2, reply_markup: { inline_keyboard: [[{ text: 'A', callback_data: 'a' }]] } } });
    expect(telegram.messages(5).map((message) => message.text)).toEqual(['from a query', 'from a form']);
  });

  it('takes multipart uploads and serves files back through getFile', async () => {
    const bytes = new TextEncoder().encode('report body');
    const sent = await bot.api.sendDocument(7, new InputFile(bytes, 'report.txt'), { caption: 'the <b>report</b>', parse_mode: 'HTML' });
    expect(sent.document).toMatchObject({ file_name: 'report.txt', file_size: bytes.length });
    expect(telegram.messages(7)[0]).toMatchObject({ kind: 'document', text: 'the report' });
    const file = await bot.api.getFile(sent.document!.file_id);
    const download = await fetch(`${telegram.apiRoot}/file/bot${telegram.token}/${file.file_path}`);
    expect(new Uint8Array(await download.arrayBuffer())).toEqual(bytes);
    await bot.api.sendPhoto(7, 'existing-file-id');
    expect(telegram.callsOf('sendPhoto')[0]!.params.photo).toBe('existing-file-id');
    expect((await fetch(`${telegram.apiRoot}/file/bot${telegram.token}/missing.jpg`)).status).toBe(404);
  });

  it('answers errors like the real API, with the HTTP status', async () => {
    expect(await raw('noSuchMethod', { method: 'POST' })).toMatchObject({ status: 404, body: { ok: false, error_code: 404 } });
    telegram.failNext('sendMessage', { status: 429, retryAfter: 3 });
    expect(await raw('sendMessage', { query: 'chat_id=1&text=x' })).toEqual({ status: 429, body: { ok: false, error_code: 429, description: 'Too Many Requests: retry after 3', parameters: { retry_after: 3 } } });
    const refused = await bot.api.sendMessage(1, '<b>open', { parse_mode: 'HTML' }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(GrammyError);
    expect((refused as GrammyError).description).toBe('Bad Request: can\'t parse entities: Can\'t find end tag corresponding to start tag "b"');
    await expect(bot.api.sendMessage(1, ' ')).rejects.toMatchObject({ description: 'Bad Request: message text is empty' });
    await expect(bot.api.sendMessage(1, 'x'.repeat(4097))).rejects.toMatchObject({ description: 'Bad Request: message is too long' });
    await expect(bot.api.sendMessage(1, 'x', { reply_parameters: { message_id: 99 } })).rejects.toMatchObject({ description: 'Bad Request: message to be replied not found' });
    expect(telegram.calls.map((call) => call.status)).toEqual([404, 429, 400, 400, 400, 400]);
  });

  it('holds a scripted call unanswered and never carries it out, until the caller goes away', async () => {
    const first = await bot.api.sendMessage(4, 'first');
    telegram.holdNext('editMessageText', (params) => params.text === 'final');
    await bot.api.editMessageText(4, first.message_id, 'preview');
    const caller = new AbortController();
    const held = bot.api.editMessageText(4, first.message_id, 'final', undefined, caller.signal as never).catch((error: unknown) => error);
    const call = await telegram.waitFor((fake) => fake.calls.find((candidate) => candidate.held));
    expect(call).toMatchObject({ method: 'editMessageText', status: 0, params: { text: 'final' } });
    expect(telegram.messages(4)).toMatchObject([{ text: 'preview', edits: 1 }]);
    caller.abort();
    expect(await held).toBeInstanceOf(Error);
    await bot.api.editMessageText(4, first.message_id, 'final');
    expect(telegram.messages(4)).toMatchObject([{ text: 'final', edits: 2 }]);
  });

  it('fails only the calls a failure\'s filter accepts', async () => {
    telegram.failNext('sendMessage', { status: 429, retryAfter: 1, when: (params) => params.text === 'limited' });
    await bot.api.sendMessage(4, 'passes by');
    await expect(bot.api.sendMessage(4, 'limited')).rejects.toMatchObject({ error_code: 429 });
    await bot.api.sendMessage(4, 'limited');
    expect(telegram.callsOf('sendMessage').map((call) => call.status)).toEqual([200, 429, 200]);
  });

  it('parses HTML into text and entities, and keeps the text current through edits', async () => {
    const sent = await bot.api.sendMessage(3, '<b>Hi</b> &amp; <pre><code class="language-ts">x &lt; 1</code></pre>', { parse_mode: 'HTML' });
    expect(sent).toMatchObject({ text: 'Hi & x < 1', entities: [{ type: 'bold', offset: 0, length: 2 }, { type: 'pre', offset: 5, length: 5, language: 'ts' }] });
    await bot.api.editMessageText(3, sent.message_id, 'Bye');
    await expect(bot.api.editMessageText(3, sent.message_id, 'Bye')).rejects.toMatchObject({ description: expect.stringContaining('message is not modified') });
    await expect(bot.api.editMessageText(3, 404, 'x')).rejects.toMatchObject({ description: 'Bad Request: message to edit not found' });
    expect(telegram.messages(3)).toMatchObject([{ messageId: sent.message_id, text: 'Bye', edits: 1 }]);
  });

  it('holds getUpdates until an update is queued, confirms by offset and filters allowed_updates', async () => {
    const held = bot.api.getUpdates({ timeout: 30, allowed_updates: ['message'] });
    await telegram.waitFor((fake) => fake.callsOf('getUpdates').length === 1);
    const first = telegram.textMessage({ chatId: 1, text: 'one' });
    telegram.pushUpdate(telegram.callbackQuery({ chatId: 1, messageId: 1, data: 'filtered out' }));
    telegram.pushUpdate(first);
    expect((await held).map((update) => update.update_id)).toEqual([first.update_id]);
    expect(await bot.api.getUpdates({ timeout: 0 })).toHaveLength(1);
    expect(await bot.api.getUpdates({ offset: first.update_id + 1, timeout: 0 })).toEqual([]);
    telegram.pushUpdate(first);
    expect(await bot.api.getUpdates({ offset: first.update_id + 1, timeout: 0 })).toEqual([first]);
  });

  it('ends a held poll when another starts (409) and when closed', async () => {
    const older = bot.api.getUpdates({ timeout: 30 }).catch((error: unknown) => error);
    await telegram.waitFor((fake) => fake.callsOf('getUpdates').length === 1);
    const newer = bot.api.getUpdates({ timeout: 30 });
    expect(await older).toMatchObject({ error_code: 409 });
    await telegram.waitFor((fake) => fake.callsOf('getUpdates').length === 2);
    await telegram.close();
    expect(await newer).toEqual([]);
  });

  it('refuses getUpdates while a webhook is set, and posts to the webhook with the secret header', async () => {
    const received: { secret: string | null; body: unknown }[] = [];
    const { createServer } = await import('node:http');
    const server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      received.push({ secret: (request.headers['x-telegram-bot-api-secret-token'] as string | undefined) ?? null, body: JSON.parse(Buffer.concat(chunks).toString()) });
      response.writeHead(204).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hook`;
    await bot.api.setWebhook(url, { secret_token: 'top_secret' });
    await expect(bot.api.getUpdates()).rejects.toMatchObject({ error_code: 409 });
    const update = telegram.textMessage({ chatId: 1, text: 'pushed' });
    expect(await telegram.postWebhook(update)).toBe(204);
    expect(await telegram.postWebhook(update, { secret: null })).toBe(204);
    expect(received).toEqual([{ secret: 'top_secret', body: update }, { secret: null, body: update }]);
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await bot.api.deleteWebhook();
    expect(telegram.webhook).toBeUndefined();
  });
  it("delivers queued updates to the webhook until it answers 200, one chat's in order, as Telegram retries", async () => {
    const received: string[] = [];
    let refuse = 2;
    const { createServer } = await import('node:http');
    const server = createServer(async (request, response) => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const update = JSON.parse(Buffer.concat(chunks).toString()) as { message: { text: string } };
      received.push(`${update.message.text} ${request.headers['x-telegram-bot-api-secret-token'] as string}`);
      // The first two posts are refused, as by a gateway that is restarting.
      response.writeHead(refuse-- > 0 ? 502 : 200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const delivery = telegram.deliverToWebhook({ firstRetryMs: 10, maxRetryMs: 20 });
    const first = telegram.textMessage({ chatId: 1, text: 'one' });
    telegram.pushUpdate(first);
    telegram.pushUpdate(telegram.textMessage({ chatId: 1, text: 'two' }));
    // Nothing is posted before a webhook is registered.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(received).toEqual([]);
    await bot.api.setWebhook(`http://127.0.0.1:${(server.address() as { port: number }).port}/hook`, { secret_token: 'top_secret' });
    await telegram.waitFor(() => delivery.acknowledged.size === 2);
    // "two" waits until "one" got its 200, however often "one" is refused.
    expect(received).toEqual(['one top_secret', 'one top_secret', 'one top_secret', 'two top_secret']);
    expect(delivery.failures).toBe(2);
    expect(delivery.acknowledged.has(first.update_id)).toBe(true);
    expect(delivery.busy()).toBe(false);
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});

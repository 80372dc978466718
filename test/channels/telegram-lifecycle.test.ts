/**
 * Telegram lifecycle: long polling start and prompt stop, webhook registration and its secret
 * check, and the bot token kept out of every error and log line.
 */
import { createServer } from 'node:net';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createTelegramChannel } from '../../src/channels/telegram/index.ts';
import { NotAcceptedError, type InboundMessage } from '../../src/channels/types.ts';
import { startFakeTelegramServer } from '../fakes/fake-telegram-server.ts';
import { startTelegramHarness, type TelegramHarness } from './telegram-harness.ts';

const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function started(mode: 'polling' | 'webhook', onMessage?: (message: InboundMessage) => Promise<void>): Promise<{ harness: TelegramHarness; messages: InboundMessage[] }> {
  const harness = await startTelegramHarness({ mode });
  const messages: InboundMessage[] = [];
  cleanups.push(() => harness.close(), () => harness.adapter.stop());
  await harness.adapter.start({ onMessage: onMessage ?? (async (message) => void messages.push(message)), onAction: async () => {} });
  return { harness, messages };
}

/** A local URL nothing listens on. */
async function deadApiRoot(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('telegram long polling', () => {
  it('initialises with getMe, removes a webhook, then long-polls for messages and button presses', async () => {
    const { harness } = await started('polling');
    const { telegram } = harness;
    await telegram.waitFor((fake) => fake.callsOf('getUpdates').length > 0);
    expect(telegram.calls.slice(0, 3).map((call) => call.method)).toEqual(['getMe', 'deleteWebhook', 'getUpdates']);
    expect(telegram.callsOf('getUpdates')[0]!.params).toMatchObject({ timeout: 30, allowed_updates: ['message', 'callback_query', 'my_chat_member'] });
    expect(harness.adapter.routes?.()).toEqual([]);
  });

  it('asks for messages only once the gateway is warm, and stops at once while it waits', async () => {
    const harness = await startTelegramHarness({ mode: 'polling' });
    cleanups.push(() => harness.close());
    const { telegram, adapter } = harness;
    const messages: InboundMessage[] = [];
    let warm!: () => void;
    const warmed = new Promise<void>((resolve) => (warm = resolve));
    telegram.pushUpdate(telegram.textMessage({ chatId: 42, text: 'waiting before start' }));
    await adapter.start({ onMessage: async (message) => void messages.push(message), onAction: async () => {}, warmed });
    // Started (getMe and deleteWebhook are done), but nothing asked for yet.
    expect(telegram.calls.map((call) => call.method)).toEqual(['getMe', 'deleteWebhook']);
    await new Promise((resolve) => setImmediate(resolve));
    expect(telegram.callsOf('getUpdates')).toHaveLength(0);
    warm();
    await vi.waitFor(() => expect(messages.map((message) => message.text)).toEqual(['waiting before start']));
    await adapter.stop();

    // Stopped while still waiting: it returns at once and never asks.
    const again = await startTelegramHarness({ mode: 'polling' });
    cleanups.push(() => again.close());
    await again.adapter.start({ onMessage: async () => {}, onAction: async () => {}, warmed: new Promise<void>(() => {}) });
    await again.adapter.stop();
    expect(again.telegram.callsOf('getUpdates')).toHaveLength(0);
  });

  it('stops at once while a long poll is held, confirming the last update', async () => {
    const { harness, messages } = await started('polling');
    const { telegram, adapter } = harness;
    const update = telegram.textMessage({ chatId: 42, text: 'one' });
    telegram.pushUpdate(update);
    await vi.waitFor(() => expect(messages).toHaveLength(1));
    await telegram.waitFor((fake) => fake.callsOf('getUpdates').some((call) => call.params.offset === update.update_id + 1));
    await adapter.stop();
    const last = telegram.callsOf('getUpdates').at(-1)!;
    expect(last.params).toMatchObject({ offset: update.update_id + 1, timeout: 0 });
    telegram.pushUpdate(telegram.textMessage({ chatId: 42, text: 'after stop' }));
    expect(messages).toHaveLength(1);
  });

  it('stops promptly after the Bot API server went away', async () => {
    const { harness } = await started('polling');
    await harness.telegram.waitFor((fake) => fake.callsOf('getUpdates').length > 0);
    await harness.telegram.close();
    await harness.adapter.stop();
    expect(harness.logs.join('\n')).not.toContain(harness.telegram.token);
  });

  it('gives up polling when Telegram refuses the token', async () => {
    const { harness } = await started('polling');
    harness.telegram.failNext('getUpdates', { status: 401 });
    harness.telegram.pushUpdate(harness.telegram.textMessage({ chatId: 42, text: 'wake the poll' }));
    await vi.waitFor(() => expect(harness.logs.some((line) => line.includes('long polling stopped'))).toBe(true));
  });
});

describe('telegram webhook', () => {
  it('registers the webhook with its secret and serves updates on POST /webhooks/telegram', async () => {
    const { harness, messages } = await started('webhook');
    const { telegram, adapter } = harness;
    expect(telegram.webhook).toEqual({ url: `${harness.routes!.origin}/webhooks/telegram`, secretToken: 'contract-secret_123', allowedUpdates: ['message', 'callback_query', 'my_chat_member'] });
    expect(telegram.callsOf('getUpdates')).toEqual([]);
    expect(adapter.routes!().map((route) => [route.method, route.path])).toEqual([['POST', '/webhooks/telegram']]);
    expect(await telegram.postWebhook(telegram.textMessage({ chatId: 42, text: 'via webhook' }))).toBe(200);
    await vi.waitFor(() => expect(messages.map((message) => message.text)).toEqual(['via webhook']));
  });

  it('answers 401 to a wrong or missing secret token and processes nothing', async () => {
    const { harness, messages } = await started('webhook');
    const { telegram } = harness;
    expect(await telegram.postWebhook(telegram.textMessage({ chatId: 42, text: 'forged' }), { secret: 'wrong-secret' })).toBe(401);
    expect(await telegram.postWebhook(telegram.textMessage({ chatId: 42, text: 'forged too' }), { secret: null })).toBe(401);
    expect(await telegram.postWebhook(telegram.textMessage({ chatId: 42, text: 'genuine' }))).toBe(200);
    await vi.waitFor(() => expect(messages).toHaveLength(1));
    expect(messages[0]!.text).toBe('genuine');
  });

  it('refuses a body that is not an update, and answers 503 once stopped so Telegram delivers again', async () => {
    const { harness } = await started('webhook');
    const route = harness.adapter.routes!()[0]!;
    const headers = { 'x-telegram-bot-api-secret-token': 'contract-secret_123', 'content-type': 'application/json' };
    const broken = await route.handler(new Request('http://gateway/webhooks/telegram', { method: 'POST', headers, body: '{not json' }));
    expect(broken.status).toBe(400);
    await harness.adapter.stop();
    expect(await harness.telegram.postWebhook(harness.telegram.textMessage({ chatId: 42, text: 'late' }))).toBe(503);
  });

  it('answers the webhook only once the gateway took the update, and 503 when it could not', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const seen: string[] = [];
    const { harness } = await started('webhook', async (message) => {
      seen.push(message.text);
      if (message.text === 'not now') throw new NotAcceptedError('store unavailable');
      if (message.text === 'hold') await held;
    });
    const { telegram } = harness;
    expect(await telegram.postWebhook(telegram.textMessage({ chatId: 42, text: 'not now' }))).toBe(503);
    expect(harness.logs.some((line) => line.includes('left for redelivery') && line.includes('store unavailable'))).toBe(true);
    let answered = false;
    const holding = telegram.postWebhook(telegram.textMessage({ chatId: 42, text: 'hold' })).then((status) => {
      answered = true;
      return status;
    });
    await vi.waitFor(() => expect(seen).toEqual(['not now', 'hold']));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(answered).toBe(false);
    release();
    expect(await holding).toBe(200);
  });

  it('mounts the route on a configured path', () => {
    const adapter = createTelegramChannel({ token: '1:x', webhook: { url: 'https://bot.example/hook', secret: 's', path: '/hooks/tg' } });
    expect(adapter.routes!().map((route) => route.path)).toEqual(['/hooks/tg']);
  });
});

describe('telegram bot token', () => {
  it('never appears in errors or logs: refused token, unreachable server, failed send', async () => {
    const telegram = await startFakeTelegramServer();
    cleanups.push(() => telegram.close());
    const logs: string[] = [];
    const refused = createTelegramChannel({ token: telegram.token, apiRoot: telegram.apiRoot, log: (line) => logs.push(line) });
    telegram.failNext('getMe', { status: 401 });
    const unauthorized = await refused.start({ onMessage: async () => {}, onAction: async () => {} }).then(() => undefined, (error: unknown) => error);
    expect(unauthorized).toMatchObject({ retryable: false });

    const apiRoot = await deadApiRoot();
    const unreachable = createTelegramChannel({ token: telegram.token, apiRoot, startTimeoutMs: 300, log: (line) => logs.push(line) });
    const startError = await unreachable.start({ onMessage: async () => {}, onAction: async () => {} }).then(() => undefined, (error: unknown) => error);
    const sendError = await unreachable.send({ platform: 'telegram', conversationId: '42' }, { text: 'hi' }).then(() => undefined, (error: unknown) => error);
    expect(sendError).toMatchObject({ retryable: true });
    expect(String((sendError as Error).message)).toContain('network error');

    // The same through the keep-alive transport, whose errors name the URL (token included).
    await unreachable.warm?.();
    const warmSendError = await unreachable.send({ platform: 'telegram', conversationId: '42' }, { text: 'hi' }).then(() => undefined, (error: unknown) => error);
    expect(warmSendError).toMatchObject({ retryable: true });

    for (const error of [unauthorized, startError, sendError, warmSendError]) {
      expect(error).toBeInstanceOf(Error);
      const shown = `${inspect(error, { depth: 10 })}\n${(error as Error).message}\n${(error as Error).stack}\n${JSON.stringify(error)}`;
      expect(shown).not.toContain(telegram.token);
      expect(shown).not.toContain(telegram.token.split(':')[1]);
    }
    expect(logs.join('\n')).not.toContain(telegram.token.split(':')[1]);
  });
});

/** The Worker in workerd: health, and a conversation's object keeping a message once. */
import { env, SELF } from 'cloudflare:test';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { telegramWebhook } from '../../src/worker/telegram-webhook.ts';
import type { WorkerEnv } from '../../src/worker/worker-env.ts';
import { callFake, eventually, readFake } from './support/fakes.ts';
import { onRecord } from './support/objects.ts';

describe('operator on Workers', () => {
  it('answers /healthz', async () => {
    const response = await SELF.fetch('http://example.com/healthz');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok', runtime: 'workers' });
  });

  it('keeps a message in its conversation object once, also when delivered twice', async () => {
    const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName('test:object'));
    // The admin's, so its turn asks the model, which holds the answer: the message waits meanwhile.
    await callFake('model', 'reset');
    await callFake('model', 'enqueue', { text: 'Held a moment', hangMs: 2_000 });
    const message = {
      id: '7',
      dedupeKey: 'telegram:4242:7',
      sessionKey: 'telegram:dm:4242',
      address: { platform: 'telegram', conversationId: '4242' },
      scope: 'dm' as const,
      sender: { id: '4242', name: 'Ada' },
      text: 'hi',
      attachments: [],
      mentioned: false,
      receivedAt: Date.now(),
    };
    expect(await stub.accept(message)).toBe(true);
    expect(await stub.accept(message)).toBe(false);
    expect(await stub.waiting()).toEqual([{ key: 'telegram:4242:7', text: 'hi', sessionKey: 'telegram:dm:4242' }]);
    // Answered once, then nothing waits.
    await eventually(() => stub.waiting(), (waiting) => waiting.length === 0);
    expect((await readFake<unknown[]>('model', 'requests')).length).toBe(1);
  });
});

describe('the Telegram webhook on Workers', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });
  const update = (updateId: number, text: string) => ({
    update_id: updateId,
    message: { message_id: updateId, date: 1_700_000_000, chat: { id: 42, type: 'private', first_name: 'Ada' }, from: { id: 42, is_bot: false, first_name: 'Ada' }, text },
  });
  const post = (body: unknown, secret: string | null = 'test-webhook-secret') =>
    SELF.fetch('http://example.com/webhooks/telegram', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(secret === null ? {} : { 'x-telegram-bot-api-secret-token': secret }) },
      body: typeof body === 'string' ? body : JSON.stringify(body),
    });

  it('refuses a wrong or missing secret, and bodies that are not updates', async () => {
    expect((await post(update(1, 'hi'), 'wrong')).status).toBe(401);
    expect((await post(update(1, 'hi'), null)).status).toBe(401);
    expect((await post('{not json')).status).toBe(400);
    expect((await post({ hello: 'world' })).status).toBe(400);
  });

  it('stays shut while TELEGRAM_WEBHOOK_SECRET is shorter than 16 characters, naming the variable and never the value', async () => {
    const logged: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
    const short = 'tg-secret-15chr';
    const request = new Request('http://example.com/webhooks/telegram', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': short },
      body: JSON.stringify(update(7100, 'guessed the short secret')),
    });
    const response = await telegramWebhook(request, { ...(env as WorkerEnv), TELEGRAM_WEBHOOK_SECRET: short });
    expect(response.status).toBe(503);
    const text = await response.text();
    expect(text).toContain('TELEGRAM_WEBHOOK_SECRET is not valid (expected 16-256 characters');
    expect(text).toContain('wrangler secret put TELEGRAM_WEBHOOK_SECRET');
    expect(logged.some((line) => line.includes('TELEGRAM_WEBHOOK_SECRET: expected 16-256 characters'))).toBe(true);
    for (const form of [short, btoa(short), [...short].map((char) => char.charCodeAt(0).toString(16)).join('')]) {
      expect(text).not.toContain(form);
      expect(logged.join('\n')).not.toContain(form);
    }
    expect(await onRecord('telegram:dm:42', 'telegram:update:7100')).toBe(false);
  });

  it('answers once the message is on record in its conversation, and keeps a redelivery once', async () => {
    expect((await post(update(7001, 'hello'))).status).toBe(200);
    expect((await post(update(7001, 'hello'))).status).toBe(200);
    // On record: the object knows the update (waiting, or already answered), so it is not taken again.
    expect(await onRecord('telegram:dm:42', 'telegram:update:7001')).toBe(true);
  });
});

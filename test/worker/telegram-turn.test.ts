/**
 * A Telegram conversation on Workers, end to end inside workerd: the webhook takes the update,
 * the conversation's object runs the turn from its alarm with the fake model, and the answer
 * reaches the fake Bot API, once.
 */
import { SELF } from 'cloudflare:test';
import { beforeEach, describe, expect, it } from 'vitest';
import { callFake, eventually } from './support/fakes.ts';

interface SentMessage {
  messageId: number;
  text: string;
}

let nextUpdate = 900_000;

/** Posts a private message from `chatId` to the Worker's webhook, as Telegram would; resolves to the status. */
async function postMessage(chatId: number, text: string, updateId = ++nextUpdate): Promise<number> {
  const update = {
    update_id: updateId,
    message: { message_id: updateId, date: Math.floor(Date.now() / 1000), chat: { id: chatId, type: 'private', first_name: 'Ada' }, from: { id: chatId, is_bot: false, first_name: 'Ada' }, text },
  };
  const response = await SELF.fetch('http://example.com/webhooks/telegram', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'test-webhook-secret' },
    body: JSON.stringify(update),
  });
  return response.status;
}

const messagesIn = (chatId: number) => callFake<SentMessage[]>('telegram', 'messages', chatId);

describe('a Telegram conversation on Workers', () => {
  beforeEach(async () => {
    await callFake('model', 'reset');
  });

  it('answers a message through the fake model and the Bot API', async () => {
    await callFake('model', 'enqueue', { text: 'Hello from the edge' });
    expect(await postMessage(4242, 'hi there')).toBe(200);
    const messages = await eventually(() => messagesIn(4242), (list) => list.some((message) => message.text === 'Hello from the edge'));
    expect(messages.map((message) => message.text)).toContain('Hello from the edge');
  });
});

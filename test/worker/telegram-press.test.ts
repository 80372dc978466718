/**
 * A Telegram button press on Workers (which offer no buttons: an old keyboard, an inline-mode
 * message) is answered in the webhook's own response, so the person's button stops spinning.
 */
import { SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';

describe('a Telegram press on Workers', () => {
  it('is answered with answerCallbackQuery in the webhook response (corpus: doc-callback-query-inline-message)', async () => {
    const update = {
      update_id: 950_001,
      callback_query: { id: '4382bfdwdsb323b2d9', from: { id: 4242, is_bot: false, first_name: 'Test Firstname', username: 'Testusername' }, data: 'Data from button callback', inline_message_id: '1234csdbsk4839', chat_instance: 'ci' },
    };
    const response = await SELF.fetch('http://example.com/webhooks/telegram', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'test-webhook-secret' },
      body: JSON.stringify(update),
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ method: 'answerCallbackQuery', callback_query_id: '4382bfdwdsb323b2d9', text: 'This button no longer does anything.' });
  });

  it('is refused without the webhook secret', async () => {
    const response = await SELF.fetch('http://example.com/webhooks/telegram', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ update_id: 950_002, callback_query: { id: 'q2', from: { id: 1, is_bot: false, first_name: 'E' }, chat_instance: 'ci' } }),
    });
    expect(response.status).toBe(401);
    await response.body?.cancel();
  });
});

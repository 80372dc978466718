/** Telegram updates posted to the Worker's webhook inside workerd, as Telegram delivers them. */
import { SELF } from 'cloudflare:test';

/** A person writing in a private chat (their own id) or in a group. */
export interface TelegramPost {
  updateId: number;
  text: string;
  from: { id: number; name: string };
  /** A group's id; unset: the private chat with `from`. */
  group?: number;
}

/** Posts a text message to `/webhooks/telegram` with the test's secret; resolves to the HTTP status. */
export async function postTelegramMessage({ updateId, text, from, group }: TelegramPost): Promise<number> {
  const chat = group === undefined ? { id: from.id, type: 'private', first_name: from.name } : { id: group, type: 'supergroup', title: 'Team' };
  const update = { update_id: updateId, message: { message_id: updateId, date: Math.floor(Date.now() / 1000), chat, from: { id: from.id, is_bot: false, first_name: from.name }, text } };
  return postTelegramUpdate(update);
}

/** Posts `update` (a photo or a document from the fake's builders, say) to `/webhooks/telegram`; resolves to the HTTP status. */
export async function postTelegramUpdate(update: object): Promise<number> {
  const response = await SELF.fetch('http://example.com/webhooks/telegram', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'test-webhook-secret' },
    body: JSON.stringify(update),
  });
  return response.status;
}

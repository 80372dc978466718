/** Telegram updates posted to the Worker's webhook inside workerd, as Telegram delivers them. */
import { env, SELF } from 'cloudflare:test';
import { telegramWebhook } from '../../../src/worker/telegram-webhook.ts';
import type { WorkerEnv } from '../../../src/worker/worker-env.ts';

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

/**
 * Posts `update` (a photo or a document from the fake's builders, say) to `/webhooks/telegram`;
 * resolves to the HTTP status. With `variables`, the webhook runs with them over the Worker's
 * own (a setting the tests' Worker does not have, such as `OPERATOR_EDITED_MESSAGES`); its
 * objects are the Worker's, with the Worker's variables.
 */
export async function postTelegramUpdate(update: object, variables?: Partial<WorkerEnv>): Promise<number> {
  const request = new Request('http://example.com/webhooks/telegram', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'test-webhook-secret' },
    body: JSON.stringify(update),
  });
  const response = variables ? await telegramWebhook(request, { ...(env as WorkerEnv), ...variables }) : await SELF.fetch(request);
  await response.body?.cancel();
  return response.status;
}

/**
 * Sends `bytes` as a document through the fake Bot API (a multipart upload, which keeps the bytes
 * as they are: only JSON crosses the fakes' control server, where `documentMessage` takes text);
 * resolves to its `file_id`, which getFile and the file download then serve.
 */
export async function uploadedFile(bytes: Uint8Array, name: string): Promise<string> {
  const form = new FormData();
  form.append('chat_id', '7070');
  form.append('document', new File([bytes], name));
  const response = await fetch(`${env.TELEGRAM_API_ROOT}/bot${env.TELEGRAM_BOT_TOKEN}/sendDocument`, { method: 'POST', body: form });
  const answer = (await response.json()) as { ok: boolean; result?: { document?: { file_id: string } } };
  if (!answer.ok || !answer.result?.document) throw new Error(`the fake Bot API did not take ${name}`);
  return answer.result.document.file_id;
}

/**
 * Telegram's webhook on Workers: the secret checked before the body is read (the webhook is off
 * while `TELEGRAM_WEBHOOK_SECRET` is shorter than 16 characters, as on Node), the body read with
 * the Node gateway's limit, the update turned into a neutral message by the Telegram channel's
 * own mapping (its files kept by their file_ids, for its turn to read), and the answer 200 only
 * once the message is on record in its conversation's Durable Object (a redelivery is recognised
 * there and taken once). When the object cannot take it, 503: Telegram delivers the update again.
 * An `edited_message` is taken with `OPERATOR_EDITED_MESSAGES=reanswer` (its object puts the new
 * wording in the place of the message while that still waits), else acknowledged. Telegram sends
 * edits only when `setWebhook`'s `allowed_updates` names `edited_message` (docs/workers.md).
 */
import type { ChatMemberUpdated, Message, Update } from 'grammy/types';
import { filesOf } from '../channels/telegram/attachments.ts';
import { staleButtonNotice } from '../channels/stale-press.ts';
import { conversationOf } from '../channels/telegram/conversation.ts';
import { toChannelEvent } from '../channels/telegram/inbound.ts';
import { bodyLimits } from '../core/body-limits.ts';
import { sameSecret } from '../core/same-secret.ts';
import { readLimitedBytes, tooLarge } from '../core/read-limited-body.ts';
import { workerGroupJoin } from './group-joins.ts';
import { workerMembership } from './membership.ts';
import { telegramIdentity } from './telegram-identity.ts';
import { sharedSecretRefusal, workerConfig } from './worker-config.ts';
import { toWireMessage } from './wire-message.ts';
import type { WorkerEnv } from './worker-env.ts';

/** Answers one POST to the webhook. */
export async function telegramWebhook(request: Request, env: WorkerEnv): Promise<Response> {
  const secret = env.TELEGRAM_WEBHOOK_SECRET;
  if (!secret) return new Response('the Telegram webhook is not configured (TELEGRAM_WEBHOOK_SECRET)', { status: 503 });
  // A secret short enough to guess opens nothing: the webhook stays shut until it is replaced.
  const refusal = sharedSecretRefusal(env, 'TELEGRAM_WEBHOOK_SECRET');
  if (refusal) return new Response(`the Telegram webhook is off: ${refusal}; set a valid one: npx wrangler secret put TELEGRAM_WEBHOOK_SECRET`, { status: 503 });
  if (!sameSecret(request.headers.get('x-telegram-bot-api-secret-token'), secret)) return new Response('secret token is wrong', { status: 401 });
  const bytes = await readLimitedBytes(request, bodyLimits.telegramWebhook);
  if (bytes === undefined) return tooLarge(bodyLimits.telegramWebhook);
  let update: Update;
  try {
    update = JSON.parse(new TextDecoder().decode(bytes)) as Update;
  } catch {
    return new Response('bad request: not JSON', { status: 400 });
  }
  if (typeof update !== 'object' || update === null || typeof update.update_id !== 'number') return new Response('bad request: not a Telegram update', { status: 400 });
  // Workers offer no buttons, so a press is on an old keyboard or an inline-mode message: it is
  // answered in the webhook's own response (Telegram carries out the method named there), so the
  // person's button stops spinning without a call of ours.
  const press = update.callback_query;
  if (press && typeof press.id === 'string') return Response.json({ method: 'answerCallbackQuery', callback_query_id: press.id, text: staleButtonNotice });
  let bot;
  try {
    bot = await telegramIdentity(env);
  } catch {
    return new Response('the bot is not known yet (getMe failed), deliver again', { status: 503 });
  }
  const event = toChannelEvent(update, {
    bot,
    // Files are fetched by their turn (by the file_ids kept with the message), not while the webhook waits.
    download: () => Promise.reject(new Error('a file is read by its turn on Workers')),
    now: Date.now,
    // An edit (`edited_message`) is handed over only where edits are answered, as the Node channel asks.
    editedMessages: workerConfig(env).config.editedMessages === 'reanswer',
  });
  // The bot added to a group: the access object approves it or gives it a code (see `group-joins.ts`).
  if (event && 'join' in event) return workerGroupJoin(env, event.join);
  // Removed from a group, blocked or unblocked in a DM: that chat's jobs pause or resume.
  if (event && 'membership' in event) return workerMembership(env, event.membership, [conversationOf((event.membership.raw as ChatMemberUpdated).chat, undefined).sessionKey]);
  // Updates that are not messages to answer (service messages; edits unless they are answered) are acknowledged.
  if (!event || !('message' in event)) return new Response('ok');
  const { message } = event;
  const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(message.sessionKey));
  try {
    // The same files, in the same order, as the message's attachments (the channel's own choice);
    // an edit keeps the files of the message it rewords.
    const refs = message.edited ? [] : filesOf(message.raw as Message).map((file) => file.fileId);
    await stub.accept(toWireMessage(message, undefined, refs));
  } catch {
    return new Response('not taken now, deliver again', { status: 503 });
  }
  return new Response('ok');
}

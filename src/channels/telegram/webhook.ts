/**
 * The webhook route: grammy's `webhookCallback` on Web `Request`/`Response` (`std/http`). A wrong
 * `X-Telegram-Bot-Api-Secret-Token` is answered 401 before the body is read; the body is then read
 * with a limit (`bodyLimits.telegramWebhook`, 1 MiB: reading stops there and the answer is 413),
 * and one that is not a Telegram update (not JSON, or JSON without an `update_id`) is answered 400
 * before grammy sees it. grammy gets a new request holding the bytes read. While the adapter is
 * stopped, or when the gateway could not take the update, the route answers 503, so Telegram keeps
 * it and delivers it again; an update whose handling threw is reported and answered 200 (dropped).
 */
import { webhookCallback, type Bot } from 'grammy/web';
import { bodyLimits } from '../../core/body-limits.ts';
import { sameSecret } from '../../core/same-secret.ts';
import { readLimitedBytes, requestWithBody, tooLarge } from '../../core/read-limited-body.ts';
import type { ChannelRoute } from '../types.ts';
import type { OutsideErrors } from '../outside-errors.ts';
import { notAccepted, unwrap, updateKind } from './guarded-update.ts';
import type { Scrub } from './telegram-errors.ts';

/** Where Telegram posts updates unless configured otherwise. */
export const defaultWebhookPath = '/webhooks/telegram';

/** Options of {@link createWebhookRoute}. */
export interface WebhookRouteOptions {
  path: string;
  secret: string;
  isRunning(): boolean;
  log(line: string): void;
  scrub: Scrub;
  /** Where an update whose handling threw is reported (it is then answered 200 and dropped). */
  outside: OutsideErrors;
}

/** The POST route receiving Telegram's updates for `bot`. */
export function createWebhookRoute(bot: Bot, options: WebhookRouteOptions): ChannelRoute {
  const callback = webhookCallback(bot, 'std/http', { secretToken: options.secret, onTimeout: 'return' });
  return {
    method: 'POST',
    path: options.path,
    async handler(request) {
      if (!options.isRunning()) return new Response('not running', { status: 503 });
      // The secret is checked before the body is read, and the body read with a limit: a stranger
      // (or a leaked secret) cannot make the process hold a huge body.
      if (!sameSecret(request.headers.get('x-telegram-bot-api-secret-token'), options.secret)) return new Response('secret token is wrong', { status: 401 });
      const bytes = await readLimitedBytes(request, bodyLimits.telegramWebhook);
      if (bytes === undefined) {
        options.log(`telegram: webhook request refused: its body is too large (over ${bodyLimits.telegramWebhook} bytes)`);
        return tooLarge(bodyLimits.telegramWebhook);
      }
      const problem = notAnUpdate(bytes);
      if (problem) {
        // Only what is wrong is logged, never the body (it may hold a person's message).
        options.log(`telegram: webhook request refused: ${problem}`);
        return new Response(`bad request: ${problem}`, { status: 400 });
      }
      try {
        return await callback(requestWithBody(request, bytes));
      } catch (error) {
        if (notAccepted(error)) {
          // Telegram delivers the update again later; the gateway will take it then.
          options.log(options.scrub(`telegram: update left for redelivery: ${notAccepted(error)!.message}`));
          return new Response('not taken now, deliver again', { status: 503 });
        }
        // Its handling threw (grammy or a handler): dropped as long polling drops it. Any answer
        // but 2xx would make Telegram deliver the same update again and again.
        options.outside.report(updateKind(JSON.parse(new TextDecoder().decode(bytes))), unwrap(error));
        return new Response('dropped', { status: 200 });
      }
    },
  };
}

export { notAccepted } from './guarded-update.ts';

/** What makes `bytes` something other than a Telegram update (a JSON object with an integer `update_id`), or undefined. */
function notAnUpdate(bytes: Uint8Array): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    return 'the body is not JSON';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the body is not a JSON object';
  if (!Number.isSafeInteger((body as { update_id?: unknown }).update_id)) return 'the body is not a Telegram update (no integer update_id)';
  return undefined;
}

/**
 * The webhook route: grammy's `webhookCallback` on Web `Request`/`Response` (`std/http`), which
 * answers 401 to a wrong `X-Telegram-Bot-Api-Secret-Token` before reading the body. While the
 * adapter is stopped the route answers 503, so Telegram keeps the update and delivers it again.
 */
import { BotError, webhookCallback, type Bot } from 'grammy/web';
import { NotAcceptedError, type ChannelRoute } from '../types.ts';
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
}

/** The POST route receiving Telegram's updates for `bot`. */
export function createWebhookRoute(bot: Bot, options: WebhookRouteOptions): ChannelRoute {
  const callback = webhookCallback(bot, 'std/http', { secretToken: options.secret, onTimeout: 'return' });
  return {
    method: 'POST',
    path: options.path,
    async handler(request) {
      if (!options.isRunning()) return new Response('not running', { status: 503 });
      try {
        return await callback(request);
      } catch (error) {
        if (notAccepted(error)) {
          // Telegram delivers the update again later; the gateway will take it then.
          options.log(options.scrub(`telegram: update left for redelivery: ${notAccepted(error)!.message}`));
          return new Response('not taken now, deliver again', { status: 503 });
        }
        options.log(options.scrub(`telegram: webhook request refused: ${error instanceof Error ? error.message : String(error)}`));
        return new Response('bad request', { status: 400 });
      }
    },
  };
}

/** The gateway's refusal inside grammy's wrapper, if that is what `error` is. */
export function notAccepted(error: unknown): NotAcceptedError | undefined {
  const inner = error instanceof BotError ? error.error : error;
  return inner instanceof NotAcceptedError ? inner : undefined;
}

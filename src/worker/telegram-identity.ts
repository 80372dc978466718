/**
 * Who the bot is on Telegram, for mentions in groups: `TELEGRAM_BOT_ID` and
 * `TELEGRAM_BOT_USERNAME` when set, else asked of `getMe` once per isolate and token, as the Node
 * channel asks once at start. A failed question is not kept: the next update asks again (its
 * webhook answers 503 meanwhile and Telegram delivers it again).
 */
import type { WorkerEnv } from './worker-env.ts';

/** The bot's id and username. */
export interface TelegramBot {
  id: number;
  username: string;
}

/** Answers by bot token (kept in memory only, as the token itself is). */
const known = new Map<string, Promise<TelegramBot>>();

/** The bot of `env` (its variables, or `getMe`); without a token, an empty identity (no mentions). */
export function telegramIdentity(env: WorkerEnv): Promise<TelegramBot> {
  if (env.TELEGRAM_BOT_ID && env.TELEGRAM_BOT_USERNAME) return Promise.resolve({ id: Number(env.TELEGRAM_BOT_ID), username: env.TELEGRAM_BOT_USERNAME });
  const token = env.TELEGRAM_BOT_TOKEN;
  if (!token) return Promise.resolve({ id: 0, username: '' });
  let identity = known.get(token);
  if (!identity) {
    identity = askGetMe(token, env.TELEGRAM_API_ROOT ?? 'https://api.telegram.org');
    known.set(token, identity);
    identity.catch(() => known.delete(token));
  }
  return identity;
}

async function askGetMe(token: string, apiRoot: string): Promise<TelegramBot> {
  const response = await fetch(`${apiRoot.replace(/\/+$/, '')}/bot${token}/getMe`);
  const answer = (await response.json().catch(() => undefined)) as { ok?: boolean; result?: { id?: unknown; username?: unknown } } | undefined;
  const bot = answer?.ok ? answer.result : undefined;
  // The error names neither the URL nor the token: the URL holds the token.
  if (typeof bot?.id !== 'number' || typeof bot.username !== 'string') throw new Error(`Telegram getMe failed (HTTP ${response.status}); is TELEGRAM_BOT_TOKEN right?`);
  return { id: bot.id, username: bot.username };
}

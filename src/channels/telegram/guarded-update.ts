/**
 * The Telegram adapter's boundary around grammy's `handleUpdate` (and the middleware behind it).
 * An update whose handling throws, in grammy or in a handler of ours, is reported as an outside
 * error with its kind (`message`, `callback_query`, ...) and dropped, the same from long polling
 * (the offset moves past it) and from the webhook (answered 200, so Telegram does not deliver a
 * poisonous update again and again). Only the gateway's refusal ({@link NotAcceptedError}) is
 * handed back, for the update to be delivered again.
 */
import { BotError, type Bot } from 'grammy/web';
import { NotAcceptedError } from '../types.ts';
import type { OutsideErrors } from '../outside-errors.ts';

/** What an update is about: its one field besides `update_id` (`message`, `my_chat_member`, ...), or `update`. */
export function updateKind(update: unknown): string {
  if (typeof update !== 'object' || update === null) return 'update';
  return Object.keys(update).find((key) => key !== 'update_id') ?? 'update';
}

/** The update's id when it has a usable one. */
export function updateIdOf(update: unknown): number | undefined {
  const id = typeof update === 'object' && update !== null ? (update as { update_id?: unknown }).update_id : undefined;
  return typeof id === 'number' && Number.isSafeInteger(id) ? id : undefined;
}

/**
 * Hands `update` to `bot`; resolves with the gateway's refusal if it refused it, else undefined,
 * whatever was thrown (reported to `outside`). Never rejects.
 */
export async function handleUpdateGuarded(bot: Bot, update: unknown, outside: OutsideErrors): Promise<NotAcceptedError | undefined> {
  try {
    await bot.handleUpdate(update as Parameters<Bot['handleUpdate']>[0]);
    return undefined;
  } catch (error) {
    const refused = notAccepted(error);
    if (refused) return refused;
    outside.report(updateKind(update), unwrap(error));
    return undefined;
  }
}

/** The error inside grammy's `BotError` wrapper (where the throw happened), or `error` itself. */
export function unwrap(error: unknown): unknown {
  return error instanceof BotError ? error.error : error;
}

/** The gateway's refusal inside grammy's wrapper, if that is what `error` is. */
export function notAccepted(error: unknown): NotAcceptedError | undefined {
  const inner = unwrap(error);
  return inner instanceof NotAcceptedError ? inner : undefined;
}

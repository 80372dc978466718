/**
 * Where a forwarded Telegram message came from, as the line put before its content (see
 * `forward-line.ts`). Telegram names the origin in `forward_origin` (a person, a person who hides
 * their account, a group on behalf of itself, a channel); older payloads carry `forward_from`,
 * `forward_from_chat` and `forward_sender_name` instead (the Bot API docs' own examples still do,
 * one with a channel-shaped `forward_from`), so both are read.
 */
import type { Chat, Message, MessageOrigin, User } from 'grammy/types';
import { forwardLine } from '../forward-line.ts';

/** The fields of payloads from before Bot API 7.0 that name a forward's origin. */
interface LegacyForward {
  forward_from?: Partial<User> & { title?: string; type?: string };
  forward_from_chat?: Partial<Chat> & { title?: string };
  forward_sender_name?: string;
  forward_signature?: string;
  forward_date?: number;
}

/** A person's or chat's name as people see it: first and last name, else title, else @username. */
function nameOf(who: { first_name?: string; last_name?: string; title?: string; username?: string } | undefined): string | undefined {
  if (!who) return undefined;
  const name = [who.first_name, who.last_name].filter(Boolean).join(' ');
  return name || who.title || (who.username ? `@${who.username}` : undefined);
}

/** The origin's parts: a chat (shown `#title`, the project's way of naming a room) and a person. */
function originParts(origin: MessageOrigin): (string | undefined)[] {
  switch (origin.type) {
    case 'user':
      return [nameOf(origin.sender_user)];
    case 'hidden_user':
      return [origin.sender_user_name];
    case 'chat':
      return [chatName(origin.sender_chat), origin.author_signature];
    case 'channel':
      return [chatName(origin.chat), origin.author_signature];
    default:
      return [];
  }
}

function chatName(chat: { title?: string; username?: string; first_name?: string; last_name?: string } | undefined): string | undefined {
  const name = nameOf(chat);
  return name === undefined ? undefined : `#${name}`;
}

/** The line naming where `message` was forwarded from, or undefined when it is not a forward. */
export function forwardLineOf(message: Message): string | undefined {
  if (message.forward_origin) return forwardLine(originParts(message.forward_origin));
  const legacy = message as Message & LegacyForward;
  if (legacy.forward_from_chat) return forwardLine([chatName(legacy.forward_from_chat), legacy.forward_signature]);
  if (legacy.forward_from) return forwardLine([legacy.forward_from.type === 'channel' ? chatName(legacy.forward_from) : nameOf(legacy.forward_from)]);
  if (legacy.forward_sender_name !== undefined) return forwardLine([legacy.forward_sender_name]);
  return legacy.forward_date !== undefined ? forwardLine([]) : undefined;
}

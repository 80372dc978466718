/**
 * Telegram chats as neutral conversations: the address (chat id, forum topic) and the session
 * key, `telegram:dm:<chatId>`, `telegram:group:<chatId>` or
 * `telegram:group:<chatId>:topic:<threadId>`.
 */
import type { Message } from 'grammy/types';
import type { ConversationAddress } from '../types.ts';

/** Where a Telegram message lives, as the neutral types see it. */
export interface TelegramConversation {
  address: ConversationAddress;
  scope: 'dm' | 'group';
  sessionKey: string;
}

/** The forum topic of a message, if it was sent in one (not the General topic). */
export function topicOf(message: Pick<Message, 'message_thread_id' | 'is_topic_message'>): number | undefined {
  return message.is_topic_message === true && message.message_thread_id !== undefined ? message.message_thread_id : undefined;
}

/** The conversation of a message in `chat`, inside forum topic `topicId` if given. */
export function conversationOf(chat: Pick<Message['chat'], 'id' | 'type'>, topicId: number | undefined): TelegramConversation {
  const chatId = String(chat.id);
  const scope = chat.type === 'private' ? 'dm' : 'group';
  const address: ConversationAddress = { platform: 'telegram', conversationId: chatId, ...(topicId !== undefined ? { threadId: String(topicId) } : {}) };
  const sessionKey = scope === 'dm' ? `telegram:dm:${chatId}` : `telegram:group:${chatId}${topicId !== undefined ? `:topic:${topicId}` : ''}`;
  return { address, scope, sessionKey };
}

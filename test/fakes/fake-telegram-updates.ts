/**
 * Builders of realistic updates for the fake Bot API: messages as Telegram delivers them (per-chat
 * message ids, server-detected `bot_command` and `mention` entities, forum topic messages that
 * reply to the topic's creation message, largest photo size last), each with a fresh update_id.
 */
import type { CallbackQuery, Message, MessageEntity, Update, User } from 'grammy/types';
import type { FakeTelegramState } from './fake-telegram-state.ts';

/** Who sent a message (defaults fill the rest). */
export type FakeUser = Partial<User> & { id: number };

/** Where and by whom a built message was sent. */
export interface FakeMessageOptions {
  chatId: number;
  /** Default: `private` for a positive id, `supergroup` otherwise. */
  chatType?: 'private' | 'group' | 'supergroup';
  chatTitle?: string;
  /** Default: the DM's person, or user 4242 in groups. */
  from?: FakeUser;
  /** A forum topic (`message_thread_id`). */
  threadId?: number;
  /** Default: true when `threadId` is given (the chat becomes a forum). */
  isTopicMessage?: boolean;
  /** Id of the message (the bot's or a person's) this one replies to. */
  replyTo?: number;
  /** Default: the `bot_command` and `mention` entities Telegram would detect. */
  entities?: MessageEntity[];
}

function detectEntities(text: string): MessageEntity[] {
  const entities: MessageEntity[] = [];
  const command = /^\/[A-Za-z0-9_]+(@[A-Za-z0-9_]+)?/.exec(text);
  if (command) entities.push({ type: 'bot_command', offset: 0, length: command[0].length });
  for (const match of text.matchAll(/(?<![\w@/])@[A-Za-z0-9_]{5,32}\b/g)) {
    entities.push({ type: 'mention', offset: match.index, length: match[0].length });
  }
  return entities;
}

function userOf(options: FakeMessageOptions): User {
  const fallbackId = options.chatId > 0 ? options.chatId : 4242;
  return { is_bot: false, first_name: 'Ada', ...options.from, id: options.from?.id ?? fallbackId } as User;
}

function registerChat(state: FakeTelegramState, options: FakeMessageOptions): void {
  const type = options.chatType ?? (options.chatId > 0 ? 'private' : 'supergroup');
  const known = state.chats.get(options.chatId);
  const isForum = known?.isForum === true || (options.threadId !== undefined && options.isTopicMessage !== false);
  state.chats.set(options.chatId, { id: options.chatId, type, title: options.chatTitle ?? known?.title, isForum });
}

/** Builds, remembers and returns a person's message (not yet queued). */
function buildMessage(state: FakeTelegramState, options: FakeMessageOptions, content: Record<string, unknown>): Message {
  registerChat(state, options);
  const chat = state.chatObject(options.chatId);
  const isTopic = options.threadId !== undefined && options.isTopicMessage !== false;
  let replyTo: Message | undefined;
  if (options.replyTo !== undefined) {
    replyTo = state.message(options.chatId, options.replyTo) ??
      ({ message_id: options.replyTo, date: Math.floor(Date.now() / 1000), chat, from: { id: 777, is_bot: false, first_name: 'Someone' }, text: '' } as Message);
  } else if (isTopic) {
    replyTo = { message_id: options.threadId!, date: Math.floor(Date.now() / 1000), chat, from: userOf(options), message_thread_id: options.threadId!, forum_topic_created: { name: `Topic ${options.threadId}`, icon_color: 7322096 } } as Message;
  }
  const message = {
    message_id: state.nextMessageId(options.chatId),
    date: Math.floor(Date.now() / 1000),
    chat,
    from: userOf(options),
    ...(options.threadId !== undefined ? { message_thread_id: options.threadId } : {}),
    ...(isTopic ? { is_topic_message: true } : {}),
    ...(replyTo ? { reply_to_message: replyTo } : {}),
    ...content,
  } as unknown as Message;
  state.rememberMessage(message);
  return message;
}

function fileBytes(label: string, size: number): Uint8Array {
  return new TextEncoder().encode(label.padEnd(size, '.'));
}

/** Update builders bound to one fake server's state. */
export function updateBuilders(state: FakeTelegramState) {
  // Paths are unique per file, as Telegram's are (`documents/file_12.pdf`): two files of the same
  // name must not serve each other's bytes.
  const registerFile = (prefix: string, bytes: Uint8Array, folder: string, extension: string) => {
    const number = state.files.size;
    const fileId = `${prefix}-${number + 1}-${state.nextUpdateId()}`;
    state.files.set(fileId, { path: `${folder}/file_${number}${extension}`, bytes });
    return fileId;
  };
  const captionOf = (caption: string | undefined, entities: MessageEntity[] | undefined) =>
    caption === undefined ? {} : { caption, caption_entities: entities ?? detectEntities(caption) };
  return {
    /** A text message. */
    textMessage(options: FakeMessageOptions & { text: string }): Update {
      const message = buildMessage(state, options, { text: options.text, entities: options.entities ?? detectEntities(options.text) });
      return { update_id: state.nextUpdateId(), message } as Update;
    },
    /** A photo in three sizes, the largest (last) holding `bytes`. */
    photoMessage(options: FakeMessageOptions & { caption?: string; bytes?: Uint8Array; width?: number; height?: number }): Update {
      const width = options.width ?? 1280;
      const height = options.height ?? 960;
      const largest = options.bytes ?? fileBytes('large-photo', 2048);
      const sizes = [[90, 68, fileBytes('thumb', 64)], [320, 240, fileBytes('medium', 512)], [width, height, largest]] as const;
      const photo = sizes.map(([w, h, bytes]) => {
        const fileId = registerFile('photo', bytes, 'photos', '.jpg');
        return { file_id: fileId, file_unique_id: `u${fileId}`, width: w, height: h, file_size: bytes.length };
      });
      const message = buildMessage(state, options, { photo, ...captionOf(options.caption, options.entities) });
      return { update_id: state.nextUpdateId(), message } as Update;
    },
    /**
     * A document (any file sent as a file). Its content: `bytes`, or `text` in UTF-8 (what a test
     * in workerd can send through the fakes' control server, where only JSON crosses).
     */
    documentMessage(options: FakeMessageOptions & { fileName: string; mimeType?: string; bytes?: Uint8Array; text?: string; caption?: string }): Update {
      const bytes = options.bytes ?? (options.text !== undefined ? new TextEncoder().encode(options.text) : fileBytes(options.fileName, 100));
      const fileId = registerFile('document', bytes, 'documents', /\.[A-Za-z0-9]{1,16}$/.exec(options.fileName)?.[0] ?? '');
      const document = { file_id: fileId, file_unique_id: `u${fileId}`, file_name: options.fileName, ...(options.mimeType ? { mime_type: options.mimeType } : {}), file_size: bytes.length };
      const message = buildMessage(state, options, { document, ...captionOf(options.caption, options.entities) });
      return { update_id: state.nextUpdateId(), message } as Update;
    },
    /**
     * A voice note (or, with `media`, an audio file or a round video note) of `duration` seconds,
     * its bytes served by getFile like any file's; `fileSize` declares a size other than its own.
     */
    voiceMessage(options: FakeMessageOptions & { duration: number; bytes?: Uint8Array; caption?: string; media?: 'voice' | 'audio' | 'video_note'; fileSize?: number }): Update {
      const media = options.media ?? 'voice';
      const bytes = options.bytes ?? fileBytes(`OggS ${media}`, 300);
      const [folder, extension, mimeType] = media === 'voice' ? ['voice', '.oga', 'audio/ogg'] : media === 'audio' ? ['music', '.mp3', 'audio/mpeg'] : ['video_notes', '.mp4', undefined];
      const fileId = registerFile(media, bytes, folder, extension);
      const file = { file_id: fileId, file_unique_id: `u${fileId}`, duration: options.duration, file_size: options.fileSize ?? bytes.length, ...(mimeType ? { mime_type: mimeType } : { length: 240 }) };
      const message = buildMessage(state, options, { [media]: file, ...captionOf(options.caption, options.entities) });
      return { update_id: state.nextUpdateId(), message } as Update;
    },
    /**
     * The bot's own membership changing in group `chatId` (`my_chat_member`), by `from`: added
     * (`member`, the default), made an administrator, or removed (`left`, `kicked`).
     */
    botMembership(options: { chatId: number; chatType?: 'group' | 'supergroup'; chatTitle?: string; from: FakeUser; status?: 'member' | 'administrator' | 'left' | 'kicked'; oldStatus?: 'member' | 'administrator' | 'left' | 'kicked' }): Update {
      registerChat(state, options);
      const status = options.status ?? 'member';
      const oldStatus = options.oldStatus ?? (status === 'left' || status === 'kicked' ? 'member' : 'left');
      const member = (memberStatus: string) => ({ user: state.bot, status: memberStatus, ...(memberStatus === 'kicked' ? { until_date: 0 } : {}) });
      const change = { chat: state.chatObject(options.chatId), from: userOf(options), date: Math.floor(Date.now() / 1000), old_chat_member: member(oldStatus), new_chat_member: member(status) };
      return { update_id: state.nextUpdateId(), my_chat_member: change } as unknown as Update;
    },
    /** An update as recorded elsewhere (a real payload), with a fresh `update_id`. */
    recorded(update: Omit<Update, 'update_id'>): Update {
      return { ...update, update_id: state.nextUpdateId() } as Update;
    },
    /** A press of an inline keyboard button under message `messageId` in `chatId`. */
    callbackQuery(options: { chatId: number; chatType?: 'private' | 'group' | 'supergroup'; from?: FakeUser; data: string; messageId: number; threadId?: number }): Update {
      registerChat(state, options);
      const message = state.message(options.chatId, options.messageId) ??
        ({ message_id: options.messageId, date: Math.floor(Date.now() / 1000), chat: state.chatObject(options.chatId), from: state.bot, text: '' } as Message);
      const from = userOf(options);
      const query = { id: `cbq-${state.nextUpdateId()}`, from, message, chat_instance: `ci-${options.chatId}`, data: options.data } as CallbackQuery;
      return { update_id: state.nextUpdateId(), callback_query: query };
    },
  };
}

/** The builders' type. */
export type FakeUpdateBuilders = ReturnType<typeof updateBuilders>;

/**
 * Neutral outbound operations as Bot API calls: send (rendered, split, then the files, one
 * message each; the first part replying, the last text chunk carrying the inline keyboard, every
 * part in the conversation's forum topic), edit, typing, the command menu and button
 * acknowledgements. A chunk whose markup Telegram refuses ("can't parse entities") goes again as
 * plain text; an edit to identical content succeeds.
 */
import type { Api } from 'grammy/web';
import type { InlineKeyboardMarkup } from 'grammy/types';
import { DeliveryError, type Button, type ChannelAction, type CommandInfo, type ConversationAddress, type OutboundMessage, type SentMessage } from '../types.ts';
import type { CallTelegram } from './call-telegram.ts';
import { telegramCommandMenu } from './command-menu.ts';
import { escapeHtml } from './format/escape-html.ts';
import type { TelegramChunk } from './format/format-message.ts';
import { loadFormatter } from './format/load-formatter.ts';
import { plainReply } from './format/plain-reply.ts';
import { telegramDescription } from './telegram-errors.ts';
import { createSendTelegramFile } from './upload.ts';

/** Telegram's outbound operations for one bot. */
export interface TelegramOutbound {
  send(address: ConversationAddress, message: OutboundMessage): Promise<SentMessage>;
  /** Edits one message: a text too long for one message keeps only its first chunk. */
  edit(address: ConversationAddress, messageId: string, message: OutboundMessage): Promise<void>;
  typing(address: ConversationAddress): Promise<void>;
  setCommands(commands: CommandInfo[]): Promise<void>;
  answerAction(action: Pick<ChannelAction, 'id'>, text?: string): Promise<void>;
}

const isParseError = (error: unknown) => /can't parse entities/i.test(telegramDescription(error) ?? '');
const isNotModified = (error: unknown) => /message is not modified/i.test(telegramDescription(error) ?? '');

function chatIdOf(address: ConversationAddress): number | string {
  return /^-?\d+$/.test(address.conversationId) ? Number(address.conversationId) : address.conversationId;
}

function topicParams(address: ConversationAddress): { message_thread_id?: number } {
  return address.threadId !== undefined ? { message_thread_id: Number(address.threadId) } : {};
}

function keyboardOf(buttons: Button[][] | undefined): { reply_markup?: InlineKeyboardMarkup } {
  if (!buttons || buttons.length === 0) return {};
  return { reply_markup: { inline_keyboard: buttons.map((row) => row.map((button) => ({ text: button.label, callback_data: button.data }))) } };
}

async function chunksOf(text: string): Promise<TelegramChunk[]> {
  const plain = plainReply(text);
  if (plain) return [plain];
  const { formatTelegramMessage } = await loadFormatter();
  const chunks = formatTelegramMessage(text);
  if (chunks.length > 0) return chunks;
  if (text.trim() === '') throw new DeliveryError('Telegram: nothing to send (empty message)', { retryable: false });
  return [{ html: escapeHtml(text.trim()), plain: text.trim() }];
}

/**
 * Outbound operations over `api`, each call through `call` (rate-limit retries, scrubbed errors);
 * files over `maxFileBytes` are refused.
 */
export function createTelegramOutbound(api: Api, call: CallTelegram, log: (line: string) => void, maxFileBytes: number): TelegramOutbound {
  const sendFile = createSendTelegramFile(api, call, maxFileBytes, log);

  async function sendChunk(chatId: number | string, chunk: TelegramChunk, extra: Record<string, unknown>) {
    try {
      return await call('sendMessage', () => api.sendMessage(chatId, chunk.html, { ...extra, parse_mode: 'HTML' }));
    } catch (error) {
      if (!isParseError(error)) throw error;
      log(`telegram: markup refused (${telegramDescription(error)}); sending as plain text`);
      return call('sendMessage', () => api.sendMessage(chatId, chunk.plain, extra));
    }
  }

  async function editChunk(chatId: number | string, messageId: number, chunk: TelegramChunk, extra: Record<string, unknown>) {
    try {
      try {
        await call('editMessageText', () => api.editMessageText(chatId, messageId, chunk.html, { ...extra, parse_mode: 'HTML' }));
      } catch (error) {
        if (!isParseError(error)) throw error;
        await call('editMessageText', () => api.editMessageText(chatId, messageId, chunk.plain, extra));
      }
    } catch (error) {
      if (!isNotModified(error)) throw error;
    }
  }

  /**
   * Edits one of the bot's messages into `chunk`; false when Telegram will not edit it any more
   * (deleted, too old), so the caller sends the chunk as a new message. Retryable failures throw.
   */
  async function replaceWith(chatId: number | string, messageId: string, chunk: TelegramChunk, extra: Record<string, unknown>): Promise<boolean> {
    try {
      await editChunk(chatId, Number(messageId), chunk, extra);
      return true;
    } catch (error) {
      if (error instanceof DeliveryError && error.retryable) throw error;
      log(`telegram: message ${messageId} could not be edited (${telegramDescription(error) ?? 'refused'}); sending anew`);
      return false;
    }
  }

  return {
    async send(address, message) {
      const files = message.files ?? [];
      // Files alone: no text part at all (Telegram refuses an empty message).
      const chunks = files.length > 0 && message.text.trim() === '' ? [] : await chunksOf(message.text);
      const chatId = chatIdOf(address);
      const parts = chunks.length + files.length;
      const keyboardAt = chunks.length > 0 ? chunks.length - 1 : parts - 1;
      const ids: string[] = [];
      /** Notes a delivered part (the caller records progress of a long reply). */
      const delivered = (id: string) => {
        ids.push(id);
        message.onPart?.(ids, parts);
      };
      for (let index = message.skipParts ?? 0; index < parts; index++) {
        const keyboard = index === keyboardAt ? keyboardOf(message.buttons) : {};
        const chunk = chunks[index];
        try {
          if (index === 0 && chunk && message.replace !== undefined && (await replaceWith(chatId, message.replace, chunk, keyboard))) {
            delivered(message.replace);
            continue;
          }
          const replyTo = index === 0 && message.replyTo !== undefined ? { reply_parameters: { message_id: Number(message.replyTo), allow_sending_without_reply: true } } : {};
          const extra = { ...topicParams(address), ...replyTo, ...keyboard };
          const sent = chunk ? await sendChunk(chatId, chunk, extra) : await sendFile(chatId, files[index - chunks.length]!, extra);
          delivered(String(sent.message_id));
        } catch (error) {
          throw error instanceof DeliveryError ? error.withDelivered(ids) : error;
        }
      }
      return { ids };
    },

    async edit(address, messageId, message) {
      const [first] = await chunksOf(message.text);
      await editChunk(chatIdOf(address), Number(messageId), first!, keyboardOf(message.buttons));
    },

    // Tried once: an indicator is worth nothing late (one shown after the answer would say the bot
    // is still writing), and while the bot is at Telegram's limit each call is one fewer for a
    // message. The gateway shows it again at its next renewal.
    async typing(address) {
      await call('sendChatAction', () => api.sendChatAction(chatIdOf(address), 'typing', topicParams(address)), { once: true });
    },

    async setCommands(commands) {
      const valid = telegramCommandMenu(commands, (command, why) => log(`telegram: command "${command.name}" left out of the menu (${why})`));
      await call('setMyCommands', () => api.setMyCommands(valid));
    },

    async answerAction(action, text) {
      await call('answerCallbackQuery', () => api.answerCallbackQuery(action.id, text !== undefined ? { text: text.slice(0, 200) } : {}));
    },
  };
}

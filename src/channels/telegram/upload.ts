/**
 * One {@link OutboundFile} as one Telegram message. JPEG, PNG and WebP images up to Telegram's
 * photo limit go with `sendPhoto`, so the chat shows them inline; everything else (GIFs, which
 * Telegram would turn into a still, larger images, other files) with `sendDocument`. A photo
 * Telegram refuses (too wide, too tall, not decodable) goes again as a document. The file is read
 * here, at send time: `grammy/web`'s `InputFile` takes bytes, not a path.
 */
import { InputFile, type Api } from 'grammy/web';
import type { Message } from 'grammy/types';
import { readOutboundFile } from '../read-outbound-file.ts';
import type { OutboundFile } from '../types.ts';
import type { CallTelegram } from './call-telegram.ts';
import { telegramDescription, telegramErrorCode } from './telegram-errors.ts';

/** Sends one file to a chat with the given extra parameters (topic, reply, keyboard). */
export type SendTelegramFile = (chatId: number | string, file: OutboundFile, extra: Record<string, unknown>) => Promise<Message>;

/** Telegram's largest photo, in bytes. */
const maxPhotoBytes = 10 * 1000 * 1000;
const photoTypes = new Set(['image/jpeg', 'image/png', 'image/webp']);

/** Makes a {@link SendTelegramFile} refusing files over `maxFileBytes`, every call through `call`. */
export function createSendTelegramFile(api: Api, call: CallTelegram, maxFileBytes: number, log: (line: string) => void): SendTelegramFile {
  // A new InputFile per attempt: `call` may run the request again after a 429.
  const sendDocument = (chatId: number | string, file: OutboundFile, bytes: Uint8Array, extra: Record<string, unknown>) =>
    call('sendDocument', () => api.sendDocument(chatId, new InputFile(bytes, file.name), extra));

  return async (chatId, file, extra) => {
    const bytes = await readOutboundFile(file, { platform: 'Telegram', maxBytes: maxFileBytes });
    if (!photoTypes.has(file.mediaType.toLowerCase()) || bytes.byteLength > maxPhotoBytes) return sendDocument(chatId, file, bytes, extra);
    try {
      return await call('sendPhoto', () => api.sendPhoto(chatId, new InputFile(bytes, file.name), extra));
    } catch (error) {
      // Only a refusal of the photo itself (400) is worth a second try; the document call fails
      // the same way when the refusal was about the chat or the topic.
      if (telegramErrorCode(error) !== 400) throw error;
      log(`telegram: photo ${file.name} refused (${telegramDescription(error)}); sending it as a document`);
      return sendDocument(chatId, file, bytes, extra);
    }
  };
}

/**
 * One outbound Markdown message as the Telegram messages to send: split with the shared
 * Markdown chunker so each chunk's visible text fits Telegram's 4,096 characters, each chunk
 * rendered as Telegram HTML with its plain-text fallback.
 */
import { chunkMarkdown } from '../../markdown/chunk-markdown.ts';
import { telegramMaxLength } from './max-length.ts';
import { plainTextFallback, visibleText } from './plain-text.ts';
import { renderTelegramHtml } from './render-telegram-html.ts';

export { telegramMaxLength };

/** One Telegram message of a split reply. */
export interface TelegramChunk {
  /** For `parse_mode: 'HTML'`. */
  html: string;
  /** Sent instead when Telegram can't parse `html`. */
  plain: string;
}

/** Splits and renders a Markdown reply for Telegram. */
export function formatTelegramMessage(markdown: string, maxLength: number = telegramMaxLength): TelegramChunk[] {
  const measure = (chunk: string) => visibleText(renderTelegramHtml(chunk)).length;
  return chunkMarkdown(markdown, { maxLength, measure })
    .map((chunk) => renderTelegramHtml(chunk))
    .filter((html) => visibleText(html).trim() !== '')
    .map((html) => ({ html, plain: plainTextFallback(html, maxLength) }));
}

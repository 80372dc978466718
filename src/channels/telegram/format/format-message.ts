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
  // The chunker measures a chunk by rendering it, and every chunk it keeps was measured: each is
  // rendered once (a reply that fits one message, the common case, was rendered twice).
  const rendered = new Map<string, string>();
  const render = (chunk: string) => {
    let html = rendered.get(chunk);
    if (html === undefined) rendered.set(chunk, (html = renderTelegramHtml(chunk)));
    return html;
  };
  const measure = (chunk: string) => visibleText(render(chunk)).length;
  return chunkMarkdown(markdown, { maxLength, measure })
    .map(render)
    .filter((html) => visibleText(html).trim() !== '')
    .map((html) => ({ html, plain: plainTextFallback(html, maxLength) }));
}

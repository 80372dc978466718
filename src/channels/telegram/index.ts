export { createTelegramChannel, type TelegramChannelOptions } from './telegram-channel.ts';
export type { RetryPolicy } from './call-telegram.ts';
export { formatTelegramMessage, telegramMaxLength, type TelegramChunk } from './format/format-message.ts';
export { renderTelegramHtml } from './format/render-telegram-html.ts';
export { defaultWebhookPath } from './webhook.ts';

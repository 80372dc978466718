/**
 * Telegram's message length limit, apart from the formatter so that the adapter can state its
 * capabilities without loading `marked` (the formatter is loaded on the first send).
 */

/** Telegram's limit on a message's text, counted after parsing the markup. */
export const telegramMaxLength = 4096;

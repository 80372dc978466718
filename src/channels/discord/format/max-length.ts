/**
 * Discord's message length limit, apart from the formatter so that the adapter can state its
 * capabilities without loading `marked` (the formatter is loaded on the first send).
 */

/** Discord's limit on a message's `content`, counted in characters of the Markdown as sent. */
export const discordMaxLength = 2000;

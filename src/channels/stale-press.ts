/**
 * What a press on a button that no longer does anything is told: an old keyboard, a question
 * already answered, a button under a message the bot cannot place (Telegram's inline-mode
 * messages). Shared by the gateway and the adapters that answer such a press themselves.
 */
export const staleButtonNotice = 'This button no longer does anything.';

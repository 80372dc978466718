/** The bindings and variables the Worker reads (see `wrangler.toml`; secrets by `wrangler secret put`). */
import type { ConversationObject } from './conversation-object.ts';

export interface WorkerEnv {
  CONVERSATIONS: DurableObjectNamespace<ConversationObject>;
  /** The secret Telegram sends with each update (`X-Telegram-Bot-Api-Secret-Token`). */
  TELEGRAM_WEBHOOK_SECRET?: string;
  /** The bot's numeric id and username, for mentions in groups. */
  TELEGRAM_BOT_ID?: string;
  TELEGRAM_BOT_USERNAME?: string;
}

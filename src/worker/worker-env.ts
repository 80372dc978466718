/**
 * The bindings and variables the Worker reads: the same variable names as the Node gateway
 * (`docs/configuration.md`), from `wrangler.toml` `[vars]`, `.dev.vars` or `wrangler secret put`
 * (tokens and keys: never in `wrangler.toml`).
 */
import type { AccessObject } from './access-object.ts';
import type { ConversationObject } from './conversation-object.ts';
import type { SpendObject } from './spend-object.ts';

export interface WorkerEnv {
  /** One Durable Object per conversation (keyed by session key). */
  CONVERSATIONS: DurableObjectNamespace<ConversationObject>;
  /** The one object that decides who may talk to the bot (pairing). */
  ACCESS: DurableObjectNamespace<AccessObject>;
  /**
   * The one object that keeps what the bot spent against its caps (see `spend-object.ts`).
   * Without it, or when it cannot be reached, every model call with a cap to check is refused.
   */
  SPEND: DurableObjectNamespace<SpendObject>;
  /** Profiles, skills and knowledge, uploaded by `operator deploy resources`. */
  RESOURCES?: KVNamespace;
  /**
   * Where files people send are kept (R2 bucket `operator-files`): each fetched from its platform
   * once, by its turn, and read from here when the turn runs again. Without it files are not
   * read, and the turn is told so.
   */
  FILES?: R2Bucket;

  /** Model: the provider's key and base URL, and the model (as on Node). */
  ANTHROPIC_API_KEY?: string;
  ANTHROPIC_BASE_URL?: string;
  OPENAI_API_KEY?: string;
  OPENAI_BASE_URL?: string;
  /** Gemini's key (`GOOGLE_API_KEY` is taken too), and its OpenAI-compatible endpoint when not Google's own (as on Node). */
  GEMINI_API_KEY?: string;
  GOOGLE_API_KEY?: string;
  GEMINI_BASE_URL?: string;
  OPERATOR_MODEL?: string;

  /**
   * Speech to text for the recordings people send (as on Node, `src/media/transcriber-env.ts`):
   * on whenever `OPENAI_API_KEY`, `OPENAI_BASE_URL` or `OPERATOR_TRANSCRIBE_BASE_URL` is set; the
   * model (default `gpt-4o-mini-transcribe`) and a key of its own for its own server.
   */
  OPERATOR_TRANSCRIBE_MODEL?: string;
  OPERATOR_TRANSCRIBE_BASE_URL?: string;
  OPERATOR_TRANSCRIBE_API_KEY?: string;
  /** The longest recording transcribed, in seconds (600), and the largest, in bytes (25 MB): `transcription` in operator.json. */
  OPERATOR_TRANSCRIBE_MAX_SECONDS?: string;
  OPERATOR_TRANSCRIBE_MAX_BYTES?: string;
  /** What a message its sender edits does: `ignore` (default) or `reanswer` (`editedMessages` in operator.json). */
  OPERATOR_EDITED_MESSAGES?: string;

  /** Who may talk to the bot (as on Node). */
  OPERATOR_DM_POLICY?: string;
  /** Which groups the bot answers in (as on Node): `approval` (default), `allowlist` or `open`. */
  OPERATOR_GROUP_POLICY?: string;
  OPERATOR_ADMINS?: string;
  /**
   * Spending caps: the JSON of `operator.json`'s `budgets` section (docs/budgets.md), e.g.
   * `{"gateway":{"day":20},"person":{"day":2}}`; unset, the defaults. An invalid value refuses
   * every model call until it is fixed (see `worker-budgets.ts`).
   */
  OPERATOR_BUDGETS?: string;

  /**
   * The web chat's login token (a secret: `wrangler secret put OPERATOR_WEB_TOKEN`, at least 16
   * characters). Without it the web chat is off: a public Worker URL serves no open chat.
   */
  OPERATOR_WEB_TOKEN?: string;

  /** Telegram: the bot's token, a self-hosted Bot API root, and the webhook's secret. */
  TELEGRAM_BOT_TOKEN?: string;
  TELEGRAM_API_ROOT?: string;
  /** The secret Telegram sends with each update (`X-Telegram-Bot-Api-Secret-Token`). */
  TELEGRAM_WEBHOOK_SECRET?: string;
  /** The bot's numeric id and username, for mentions in groups (optional: asked of `getMe` when unset). */
  TELEGRAM_BOT_ID?: string;
  TELEGRAM_BOT_USERNAME?: string;

  /** Slack: the bot token, the signing secret of the Events API, a non-default Web API base. */
  SLACK_BOT_TOKEN?: string;
  SLACK_SIGNING_SECRET?: string;
  SLACK_API_URL?: string;
  /** Where a channel's top-level messages are answered: `always` (default, in a thread), `mentions` or `never` (`slack.replyInThread`). */
  SLACK_REPLY_IN_THREAD?: string;

  /** Discord: the bot token, the application's id and public key (interactions), a non-default REST base. */
  DISCORD_BOT_TOKEN?: string;
  DISCORD_APPLICATION_ID?: string;
  DISCORD_PUBLIC_KEY?: string;
  DISCORD_API_URL?: string;
}

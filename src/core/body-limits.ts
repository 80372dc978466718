/**
 * The largest request body each of the gateway's routes takes, in bytes, all in one place. Every
 * route reads its body through `readLimitedBody` (or `readLimitedBytes`) with one of these, so
 * reading stops at the limit (the rest is never held) and the answer is 413, before any parsing,
 * signature check or platform SDK sees a byte. Routes not listed here read no body at all (the
 * page, the event stream, the history, file downloads, the health checks, unknown paths).
 *
 * None of the routes takes an upload: the web chat's files go only from the gateway to the page
 * (its `capabilities.maxFileBytes` limits what it sends, not what it takes), and the platforms
 * give inbound files as links the gateway downloads with its own limit.
 */

const kibibyte = 1024;
const mebibyte = 1024 * kibibyte;

/** The body limit of each route that reads one. */
export const bodyLimits = {
  /**
   * `POST /webhooks/telegram`: one Telegram update as JSON. The largest real ones (a 4,096
   * character message with entities, a poll, a long caption and its reply) are tens of KiB.
   */
  telegramWebhook: mebibyte,
  /**
   * `POST /webhooks/slack`: an Events API callback (JSON), an interaction (a form holding JSON) or
   * a slash command (a form). Slack's own messages are at most 40,000 characters.
   */
  slackWebhook: mebibyte,
  /** `POST /control/*`: the command line's requests (`operator schedule`: JSON, a prompt and a time; `operator budget`). */
  control: mebibyte,
  /**
   * `POST /web/messages` and `POST /web/actions`: the web chat's JSON. A message is at most
   * 100,000 characters (`maxInboundText`): at most three UTF-8 bytes each (300,000 bytes), with
   * room for the JSON around it.
   */
  webChat: 512 * kibibyte,
  /** `POST /web/login` and `POST /admin/login`: a token in a form or in JSON (a generated one is 43 characters). */
  webLogin: 4 * kibibyte,
  /** `POST /admin/api/*`: the admin console's actions (JSON: a job id, a pairing code, a profile name). */
  adminConsole: 16 * kibibyte,
  /**
   * `POST /v1/chat/completions`: an OpenAI-compatible client sends the whole conversation every
   * time (only its newest message is read), images inline as data URLs among it.
   */
  openaiApi: 16 * mebibyte,
} as const;

/** The name of a route's limit in {@link bodyLimits}. */
export type BodyLimitName = keyof typeof bodyLimits;

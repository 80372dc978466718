/**
 * What the Telegram benchmarks send a bot (the Node gateway in `gateway.bench.ts`, the Worker in
 * `workers.bench.ts`): webhook updates, their secret and path, the fake model's reply, and the
 * environment that points a spawned gateway at the fakes.
 */

/** Shorter than a preview is worth showing, so each turn ends in exactly one sendMessage. */
export const REPLY = 'Sure, done.';
export const SECRET = 'bench-webhook-secret';
export const WEBHOOK_PATH = '/webhooks/telegram';

let updateId = 500_000;
const messageIds = new Map<number, number>();

/** A private text message as Telegram delivers it (per-chat message ids, a fresh update id). */
export function textUpdate(chatId: number, text: string): string {
  const messageId = (messageIds.get(chatId) ?? 0) + 1;
  messageIds.set(chatId, messageId);
  const from = { id: chatId, is_bot: false, first_name: 'Person' };
  return JSON.stringify({
    update_id: ++updateId,
    message: { message_id: messageId, date: Math.floor(Date.now() / 1000), chat: { id: chatId, type: 'private', first_name: 'Person' }, from, text },
  });
}

/**
 * The environment of a Node gateway with its home at `home`, taking Telegram by webhook on `port`
 * from the fake Telegram, answered by the fake model: anyone may talk, no background reviewer.
 */
export function gatewayEnv(home: string, port: number, fakes: { model: { anthropicBaseURL: string }; telegram: { token: string; apiRoot: string } }): Record<string, string> {
  return {
    HOME: home,
    OPERATOR_HOME: home,
    ANTHROPIC_API_KEY: 'bench-key',
    ANTHROPIC_BASE_URL: fakes.model.anthropicBaseURL,
    TELEGRAM_BOT_TOKEN: fakes.telegram.token,
    TELEGRAM_API_ROOT: fakes.telegram.apiRoot,
    TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}${WEBHOOK_PATH}`,
    TELEGRAM_WEBHOOK_SECRET: SECRET,
    OPERATOR_DM_POLICY: 'open',
    OPERATOR_REVIEW_EVERY: '0',
  };
}

/**
 * Doctor check: the Telegram token is accepted (`getMe`) at the configured Bot API root, privacy
 * mode fits the configured groups (from the same answer), and the registered webhook is
 * `TELEGRAM_WEBHOOK_URL` when one is configured. Plain fetch: the URL holds the token, so it is
 * never shown.
 */
import type { TelegramSettings } from '../../gateway/config/index.ts';
import { messageOf, requestJson, type CheckResult } from './check.ts';
import { privacyModeResult } from './telegram-privacy.ts';

const name = 'Telegram';
const defaultRoot = 'https://api.telegram.org';

interface BotAnswer {
  ok?: boolean;
  description?: string;
  result?: { username?: string; url?: string; can_read_all_group_messages?: unknown };
}

/**
 * Checks the bot behind `token`, unless `offline` (then only that it is set).
 *
 * @param noMentionGroups the `telegram:<chat id>` groups configured with `requireMention: false`
 * (undefined when the configuration is invalid).
 */
export async function checkTelegram(token: string, settings: TelegramSettings, offline: boolean, noMentionGroups?: readonly string[]): Promise<CheckResult[]> {
  const root = (settings.apiRoot ?? defaultRoot).replace(/\/+$/, '');
  const where = settings.apiRoot ? ` at ${root}` : '';
  if (offline) return [{ level: 'OK', name, detail: `TELEGRAM_BOT_TOKEN is set; not contacted (--offline)` }];
  const call = (method: string) => requestJson(`${root}/bot${token}/${method}`, { method: 'GET' }, root);
  let me: BotAnswer;
  try {
    const answer = await call('getMe');
    me = (answer.body ?? {}) as BotAnswer;
    if (!me.ok) return [refused(answer.status, me.description ?? answer.statusText, where)];
  } catch (error) {
    return [{ level: 'FAIL', name, detail: messageOf(error), fix: settings.apiRoot ? 'check TELEGRAM_API_ROOT and the network' : 'check the network (and a proxy, if any)' }];
  }
  const username = me.result?.username ?? '?';
  const bot: CheckResult = { level: 'OK', name, detail: `the token is accepted: @${username}${where}` };
  const privacy = privacyModeResult(me.result?.can_read_all_group_messages, noMentionGroups, username);
  const lines = privacy ? [bot, privacy] : [bot];
  if (!settings.webhookUrl) return lines;
  return [...lines, await checkWebhook(() => call('getWebhookInfo'), settings.webhookUrl)];
}

function refused(status: number, description: string, where: string): CheckResult {
  if (status === 401 || status === 404) return { level: 'FAIL', name, detail: `the token is refused (${status} ${description})${where}`, fix: 'check TELEGRAM_BOT_TOKEN (as @BotFather gave it)' };
  return { level: 'FAIL', name, detail: `getMe failed (${status} ${description})${where}`, fix: 'try again later; check TELEGRAM_API_ROOT if it is set' };
}

async function checkWebhook(getInfo: () => ReturnType<typeof requestJson>, expected: string): Promise<CheckResult> {
  const webhook = 'Telegram webhook';
  try {
    const info = ((await getInfo()).body ?? {}) as BotAnswer;
    if (!info.ok) return { level: 'WARN', name: webhook, detail: `getWebhookInfo failed (${info.description ?? 'no answer'})`, fix: 'the gateway registers the webhook at its start' };
    const registered = info.result?.url ?? '';
    if (registered === expected) return { level: 'OK', name: webhook, detail: `registered at ${expected}` };
    const now = registered === '' ? 'none is registered' : `${registered} is registered`;
    return { level: 'WARN', name: webhook, detail: `TELEGRAM_WEBHOOK_URL is ${expected}, but ${now}`, fix: 'the gateway registers it at its start; if this stays after a start, check that URL' };
  } catch (error) {
    return { level: 'WARN', name: webhook, detail: `getWebhookInfo failed (${messageOf(error)})`, fix: 'the gateway registers the webhook at its start' };
  }
}

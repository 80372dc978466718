/**
 * The chaos run's Telegram: the fake Bot API, by webhook or long polling. Webhook updates are
 * delivered by the fake as Telegram does (posted again, with growing pauses, until the gateway
 * answers 200; one chat's in order); long-poll updates stay with the fake until the gateway
 * confirms them with a later offset. Acknowledged: a 200, or an offset past the update.
 */
import { freePort } from '../helpers/free-port.ts';
import { startGateway } from '../helpers/gateway-process.ts';
import { startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { ChaosPlatform } from './chaos-driver.ts';

/** Chats are DMs with people whose ids start here (a DM's chat id is its person's id). */
const firstChatId = 9_100_000;

/** The Telegram platform in `mode`, with its fakes started (the gateway is not). */
export async function telegramPlatform(mode: 'webhook' | 'polling', random: () => number, startTimeoutMs = 30_000): Promise<ChaosPlatform> {
  // Both ways a DM reply streams are under the kills: by drafts when polling, by the edited
  // preview (a Bot API server without drafts) by webhook.
  const fakes = await startTelegramGatewayFakes('operator-chaos-', { drafts: mode === 'webhook' ? 'unknown-method' : 'yes' });
  const { telegram } = fakes;
  const port = mode === 'webhook' ? await freePort() : undefined;
  const env = {
    ...fakes.env([]),
    OPERATOR_DM_POLICY: 'open',
    ...(port !== undefined && { TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/webhooks/telegram`, TELEGRAM_WEBHOOK_SECRET: 'chaos-webhook-secret-0123456789' }),
  };
  const webhook = mode === 'webhook' ? telegram.deliverToWebhook({ random }) : undefined;
  const updateIds = new Map<string, number>();
  /** The highest offset the gateway's long polls confirmed (updates below it are acknowledged). */
  const confirmedOffset = () => Math.max(0, ...telegram.callsOf('getUpdates').map((call) => Number(call.params.offset ?? 0)).filter(Number.isFinite));
  const acknowledged = (token: string) => {
    const id = updateIds.get(token);
    if (id === undefined) return false;
    return webhook ? webhook.acknowledged.has(id) : id < confirmedOffset();
  };
  return {
    model: fakes.model,
    home: fakes.home,
    start: () => startGateway({ home: fakes.home, env, ...(port !== undefined && { port }) }, startTimeoutMs),
    send(chat, text, token) {
      const update = telegram.textMessage({ chatId: firstChatId + chat, text, from: { id: firstChatId + chat, first_name: `P${chat}` } });
      updateIds.set(token, update.update_id);
      telegram.pushUpdate(update);
    },
    delivering: () => [...updateIds.keys()].some((token) => !acknowledged(token)),
    botMessages(chat) {
      const chatId = firstChatId + chat;
      const sent = new Map(telegram.callsOf('sendMessage').filter((call) => Number(call.params.chat_id) === chatId && call.messageId !== undefined).map((call) => [call.messageId!, call]));
      return telegram.messages(chatId).map(({ text, edits, createdAt, messageId }) => ({ text, edits, createdAt, answeredAt: sent.get(messageId)?.answeredAt, connectedAt: sent.get(messageId)?.connectedAt, noteKey: `${chatId}:${messageId}` }));
    },
    callTimes: () => telegram.calls.map(({ at, connectedAt }) => ({ at, connectedAt })),
    activity: () => telegram.calls.filter((call) => call.method !== 'getUpdates').length,
    delivery: (token) => ({ acknowledged: acknowledged(token) }),
    redeliveries: () => webhook?.failures ?? 0,
    calls: () =>
      telegram.calls
        .filter((call) => call.method !== 'getUpdates' && call.method !== 'sendChatAction')
        .map((call) => `${call.method} ${String(call.params.chat_id)} ${String(call.params.message_id ?? '')} ${String(call.params.text ?? '').slice(0, 30)}`),
    close: () => fakes.close(),
  };
}

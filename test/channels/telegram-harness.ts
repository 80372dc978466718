/**
 * The Telegram adapter wired to the fake Bot API server, by long polling or by webhook (its
 * routes served over HTTP), with the platform-side powers the contract suite and the Telegram
 * tests use.
 */
import type { Update } from 'grammy/types';
import { createTelegramChannel, type TelegramChannelOptions } from '../../src/channels/telegram/index.ts';
import type { ChannelAdapter, ConversationAddress } from '../../src/channels/types.ts';
import { startFakeTelegramServer, type FakeSentMessage, type FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { AdapterHarness, SentRecord } from './adapter-contract.ts';
import { serveRoutes, type RouteServer } from './serve-routes.ts';

/** A Telegram adapter on a fake Bot API. */
export interface TelegramHarness extends AdapterHarness {
  telegram: FakeTelegram;
  /** Log lines the adapter wrote. */
  logs: string[];
  /** The route server (webhook mode). */
  routes?: RouteServer;
  /** Delivers an update the way the mode receives them (queued for getUpdates, or POSTed to the webhook). */
  deliver(update: Update): Promise<void>;
}

/** Options of {@link startTelegramHarness}. */
export interface TelegramHarnessOptions {
  mode: 'polling' | 'webhook';
  /** The conversation of the contract suite (default: a DM with person 4242). */
  address?: ConversationAddress;
  /** More adapter options (retry policy, ...). */
  adapter?: Partial<TelegramChannelOptions>;
}

const webhookSecret = 'contract-secret_123';

/** Reads a fake's sent message as the contract suite sees it. */
export function sentRecordOf(message: FakeSentMessage): SentRecord {
  const keyboard = (message.replyMarkup as { inline_keyboard?: { text: string; callback_data?: string }[][] } | undefined)?.inline_keyboard;
  return {
    id: String(message.messageId),
    text: message.text,
    codeBlocks: message.entities.filter((entity) => entity.type === 'pre').map((entity) => message.text.slice(entity.offset, entity.offset + entity.length)),
    ...(keyboard ? { buttons: keyboard.map((row) => row.map((button) => ({ label: button.text, data: button.callback_data ?? '' }))) } : {}),
  };
}

function chatTypeOf(address: ConversationAddress): 'private' | 'supergroup' {
  return Number(address.conversationId) > 0 ? 'private' : 'supergroup';
}

/** Starts the fake and creates (without starting) the adapter. */
export async function startTelegramHarness(options: TelegramHarnessOptions): Promise<TelegramHarness> {
  const telegram = await startFakeTelegramServer();
  const logs: string[] = [];
  // The route server needs the adapter's URL first; it asks for the routes only per request.
  const routes = options.mode === 'webhook' ? await serveRoutes(() => adapter.routes?.() ?? []) : undefined;
  const adapter: ChannelAdapter = createTelegramChannel({
    token: telegram.token,
    apiRoot: telegram.apiRoot,
    ...(routes ? { webhook: { url: `${routes.origin}/webhooks/telegram`, secret: webhookSecret } } : {}),
    log: (line) => logs.push(line),
    ...options.adapter,
  });
  const address = options.address ?? { platform: 'telegram', conversationId: '4242' };
  const deliver = async (update: Update) => {
    if (!routes) return telegram.pushUpdate(update);
    const status = await telegram.postWebhook(update);
    if (status !== 200) throw new Error(`webhook answered ${status}`);
  };
  const topic = (target: ConversationAddress) => (target.threadId !== undefined ? { threadId: Number(target.threadId) } : {});
  return {
    telegram,
    logs,
    routes,
    adapter,
    address,
    deliver,
    async deliverText(target, text) {
      const update = telegram.textMessage({ chatId: Number(target.conversationId), chatType: chatTypeOf(target), text, ...topic(target) });
      await deliver(update);
      return { redeliver: () => deliver(update) };
    },
    async sent(target) {
      return telegram.messages(Number(target.conversationId), topic(target)).map(sentRecordOf);
    },
    async sentFiles(target) {
      return telegram.messages(Number(target.conversationId), topic(target)).flatMap((message) => (message.file ? [message.file] : []));
    },
    async pressButton(target, messageId, data) {
      await deliver(telegram.callbackQuery({ chatId: Number(target.conversationId), chatType: chatTypeOf(target), messageId: Number(messageId), data, ...topic(target) }));
    },
    async actionAnswered(action) {
      return telegram.answeredCallbacks.some((answer) => answer.id === action.id);
    },
    async close() {
      await telegram.close();
      await routes?.close();
    },
  };
}

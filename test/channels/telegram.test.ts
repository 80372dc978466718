/**
 * The channel contract run against the Telegram adapter and the fake Bot API: by long polling in
 * a direct message, and by webhook in a supergroup forum topic.
 */
import { describeAdapterContract } from './adapter-contract.ts';
import { startTelegramHarness } from './telegram-harness.ts';

describeAdapterContract('telegram (long polling, direct message)', () => startTelegramHarness({ mode: 'polling' }));

describeAdapterContract('telegram (webhook, forum topic)', () =>
  startTelegramHarness({ mode: 'webhook', address: { platform: 'telegram', conversationId: '-1001234567890', threadId: '17' } }),
);

/**
 * Telegram drafts through the real adapter and the real reply stream, against the fake Bot API:
 * a private chat's reply grows in drafts (the "Thinking…" placeholder while a tool runs) and
 * leaves no message behind until the final send; groups and a server that refuses the method get
 * the edited preview, and a refusal is remembered for the bot: in its memory (the gateway's store,
 * through `channelMemory`), for a new adapter of the same bot on the same server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createTelegramChannel } from '../../src/channels/telegram/index.ts';
import type { ChannelAdapter, ChannelMemory, ConversationAddress } from '../../src/channels/types.ts';
import { channelMemory } from '../../src/gateway/channel-memory.ts';
import { ReplyStream } from '../../src/gateway/reply-stream.ts';
import { createStore } from '../../src/store/index.ts';
import { startFakeTelegramServer, type FakeDraftSupport, type FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { startTelegramHarness, type TelegramHarness } from './telegram-harness.ts';

const dm: ConversationAddress = { platform: 'telegram', conversationId: '42' };
const group: ConversationAddress = { platform: 'telegram', conversationId: '-1001' };
const answer = 'The deploy window is on Tuesday mornings';
let harness: TelegramHarness;

async function start(options: { drafts?: 'auto' | 'off'; support?: FakeDraftSupport; memory?: ChannelMemory } = {}): Promise<TelegramHarness> {
  harness = await startTelegramHarness({ mode: 'polling', adapter: { ...(options.drafts && { drafts: options.drafts }), ...(options.memory && { memory: options.memory }) } });
  harness.telegram.draftSupport = options.support ?? 'yes';
  await harness.adapter.start({ onMessage: async () => {}, onAction: async () => {} });
  return harness;
}

/** Streams `answer` in two pieces with a tool call before it, closes, and sends the final text as the ledger would. */
async function reply(address: ConversationAddress, on: { adapter: ChannelAdapter; telegram: FakeTelegram } = harness): Promise<string | undefined> {
  const { telegram, adapter } = on;
  const stream = new ReplyStream(adapter, address);
  const shown = () => telegram.calls.filter((call) => String(call.params.text ?? '').startsWith('The deploy')).length;
  const before = { drafts: telegram.callsOf('sendMessageDraft').length, shown: shown() };
  stream.showNow();
  if (stream.drafting) await telegram.waitFor((fake) => fake.callsOf('sendMessageDraft').length > before.drafts || undefined, 5_000);
  stream.push(answer);
  await telegram.waitFor(() => shown() > before.shown || undefined, 5_000);
  stream.push(', between ten and noon.');
  const previewId = await stream.close();
  await adapter.send(address, { text: `${answer}, between ten and noon.`, replace: previewId });
  return previewId;
}

afterEach(async () => {
  await harness.adapter.stop();
  await harness.close();
});

describe('telegram drafts', () => {
  it('streams a private chat reply in drafts and ends with one message: sent once the draft is done, finished by one edit', async () => {
    const { telegram } = await start();
    // The message is a preview, noted before the final text replaces it: a restart repeats the
    // edit, never the message.
    const previewId = await reply(dm);
    expect(previewId).toBeDefined();
    const drafts = telegram.drafts(42);
    // The placeholder first (a tool ran before any text), then the text, all one draft.
    expect(drafts[0]!.text).toBe('');
    expect(drafts.some((draft) => draft.text.startsWith(answer))).toBe(true);
    expect(new Set(drafts.map((draft) => draft.draftId)).size).toBe(1);
    expect(telegram.messages(42).map((message) => [message.text, message.edits])).toEqual([[`${answer}, between ten and noon.`, 1]]);
    expect(telegram.callsOf('sendMessage')).toHaveLength(1);
    expect(telegram.callsOf('editMessageText')).toHaveLength(1);
  });

  it('streams a group reply by an edited preview (drafts are for private chats)', async () => {
    const { telegram } = await start();
    const previewId = await reply(group);
    expect(previewId).toBeDefined();
    expect(telegram.callsOf('sendMessageDraft')).toHaveLength(0);
    expect(telegram.messages(-1001).map((message) => message.text)).toEqual([`${answer}, between ten and noon.`]);
    expect(telegram.messages(-1001)[0]!.edits).toBeGreaterThan(0);
  });

  for (const support of ['unknown-method', 'refused'] as const) {
    it(`falls back to the edited preview when the server answers drafts as ${support}, and asks only once per bot`, async () => {
      const { telegram, logs } = await start({ support });
      expect(await reply(dm)).toBeDefined();
      expect(telegram.messages(42).map((message) => message.text)).toEqual([`${answer}, between ten and noon.`]);
      expect(telegram.messages(42)[0]!.edits).toBeGreaterThan(0);
      expect(logs.some((line) => line.includes('drafts refused'))).toBe(true);
      // The next reply does not ask again.
      expect(await reply(dm)).toBeDefined();
      expect(telegram.callsOf('sendMessageDraft')).toHaveLength(1);
      expect(telegram.messages(42)).toHaveLength(2);
    });
  }

  it('keeps a refusal in its memory for the bot and its server: a new adapter there does not ask, one on another server does', async () => {
    const store = createStore({ driver: 'memory' });
    const memory = channelMemory(() => store, 'telegram');
    const { telegram } = await start({ support: 'refused', memory });
    expect(await reply(dm)).toBeDefined();
    expect(telegram.callsOf('sendMessageDraft')).toHaveLength(1);
    await harness.adapter.stop();

    // A new process's adapter of the same bot on the same server (the server would take drafts
    // now): it recalls the refusal at start and goes straight to edited previews.
    telegram.draftSupport = 'yes';
    const again = createTelegramChannel({ token: telegram.token, apiRoot: telegram.apiRoot, log: () => {}, memory });
    await again.start({ onMessage: async () => {}, onAction: async () => {} });
    try {
      expect(again.drafts?.available(dm)).toBe(false);
      expect(await reply(dm, { adapter: again, telegram })).toBeDefined();
      expect(telegram.callsOf('sendMessageDraft')).toHaveLength(1);
    } finally {
      await again.stop();
    }

    // The same bot on another server (TELEGRAM_API_ROOT changed): asked again.
    const moved = await startFakeTelegramServer();
    const movedBot = createTelegramChannel({ token: moved.token, apiRoot: moved.apiRoot, log: () => {}, memory });
    await movedBot.start({ onMessage: async () => {}, onAction: async () => {} });
    try {
      expect(moved.bot.id).toBe(telegram.bot.id);
      expect(movedBot.drafts?.available(dm)).toBe(true);
      expect(await reply(dm, { adapter: movedBot, telegram: moved })).toBeDefined();
      expect(moved.callsOf('sendMessageDraft').length).toBeGreaterThan(0);
    } finally {
      await movedBot.stop();
      await moved.close();
      await store.close();
    }
  });

  it('keeps drafting after a draft that failed for itself (a 500 is not a refusal)', async () => {
    const { telegram } = await start();
    telegram.failNext('sendMessageDraft', { status: 500 });
    const first = new ReplyStream(harness.adapter, dm);
    first.showNow();
    await telegram.waitFor((fake) => fake.callsOf('sendMessageDraft').length > 0 || undefined, 5_000);
    expect(first.drafting).toBe(true);
    await first.close();
    expect(await reply(dm)).toBeDefined();
    expect(telegram.drafts(42).some((draft) => draft.text.startsWith(answer))).toBe(true);
    expect(telegram.messages(42).map((message) => message.edits)).toEqual([1]);
  });

  it('finishes a preview an earlier process left by edits, not in a draft', async () => {
    const { telegram } = await start();
    const { ids } = await harness.adapter.send(dm, { text: 'The deploy window is on …' });
    const stream = new ReplyStream(harness.adapter, dm, { messageId: ids[0] });
    expect(stream.drafting).toBe(false);
    stream.push(answer);
    await telegram.waitFor((fake) => fake.messages(42)[0]!.edits > 0 || undefined, 5_000);
    expect(await stream.close()).toBe(ids[0]);
    expect(telegram.callsOf('sendMessageDraft')).toHaveLength(0);
  });

  it('never drafts with drafts off', async () => {
    const { telegram } = await start({ drafts: 'off' });
    expect(await reply(dm)).toBeDefined();
    expect(telegram.callsOf('sendMessageDraft')).toHaveLength(0);
    expect(telegram.messages(42)[0]!.edits).toBeGreaterThan(0);
  });
});

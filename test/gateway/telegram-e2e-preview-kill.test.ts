/**
 * No half preview after a kill: the real gateway process, streaming answers to Telegram direct
 * messages, is killed with SIGKILL right after the fake Bot API answered a preview's sendMessage,
 * and started again on the same OPERATOR_HOME. Every preview whose id the killed process had
 * heard must be on record, and the restart finishes it into the answer: one whole answer per
 * chat, no "…" left. Telegram has no idempotent send, so a preview whose answer was still on its
 * way when the process died is the one thing a restart cannot see (counted, never an answer twice).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { createInbox } from '../../src/gateway/inbox.ts';
import { createStore } from '../../src/store/index.ts';
import { startGateway, type GatewayProcess } from '../helpers/gateway-process.ts';
import { startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const wait = 60_000;

describe('Telegram: a kill right after a preview was sent', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess | undefined;
  const start = () => startGateway({ home: fakes.home, env: { ...fakes.env([]), OPERATOR_DM_POLICY: 'open' } }, wait);

  beforeAll(async () => {
    // Edited previews are what these tests watch: a Bot API server without drafts, where DM replies
    // stream by them (as group replies always do; drafts: telegram-drafts-e2e.test.ts).
    fakes = await startTelegramGatewayFakes('operator-telegram-preview-kill-', { drafts: 'unknown-method' });
    ({ model, telegram } = fakes);
    // Every answer names its question and streams slowly, so kills land mid-stream.
    model.setDefault((request) => ({ text: `Answer to ${JSON.stringify(request.body.messages).match(/q-\d+/)?.[0] ?? 'q-?'}: ${'streaming along, '.repeat(14)}done.`, chunkSize: 8, delayMs: 40 }));
    gateway = await start();
  }, wait);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const isPreview = (text: unknown) => String(text).endsWith('…');
  /** The preview ids the inbox has on record, by chat (read from the store while no gateway runs). */
  async function previewsOnRecord(): Promise<Map<string, string>> {
    const store = createStore({ driver: 'fs', base: join(fakes.home, 'state') });
    try {
      const pending = await createInbox(store).pending();
      return new Map(pending.flatMap((entry) => (entry.previewId === undefined ? [] : [[entry.address.conversationId, entry.previewId] as [string, string]])));
    } finally {
      await store.close();
    }
  }
  /** Waits until every chat shows a whole answer naming its question. */
  const answered = (chats: readonly number[]) =>
    telegram
      .waitFor((fake) => chats.every((chat) => fake.messages(chat).some((message) => message.text.startsWith(`Answer to q-${chat}:`) && message.text.endsWith('done.'))), wait)
      .catch((error: unknown) => {
        throw new Error(`${String(error)}\n${gateway?.output.all() ?? ''}`);
      });

  it("finishes a preview whose next edit the killed process was sending: its id was on record first", async () => {
    const chat = 3_050;
    // The stream's first edit of its preview never reaches Telegram: the process dies sending it.
    telegram.holdNext('editMessageText', (params) => Number(params.chat_id) === chat && isPreview(params.text));
    telegram.pushUpdate(telegram.textMessage({ chatId: chat, text: `q-${chat} please`, from: { id: chat, first_name: 'Ada' } }));
    await telegram.waitFor((fake) => fake.calls.find((call) => call.held && Number(call.params.chat_id) === chat), wait);
    await gateway!.kill();
    const [preview] = telegram.messages(chat);
    expect(preview?.text.endsWith('…')).toBe(true);
    expect((await previewsOnRecord()).get(String(chat))).toBe(String(preview!.messageId));

    gateway = await start();
    await answered([chat]);
    await telegram.waitFor((fake) => (fake.messages(chat).every((message) => !isPreview(message.text)) ? true : undefined), wait);
    const messages = telegram.messages(chat);
    expect(messages.map((message) => message.messageId)).toEqual([preview!.messageId]);
    expect(messages[0]!.text).toMatch(/^Answer to q-3050: (streaming along, ){14}done\.$/);
  }, 3 * wait);

  it('leaves one whole answer per chat, and finishes every preview whose id the killed process heard', async () => {
    const chats = Array.from({ length: 10 }, (_, index) => 3_100 + index);
    const sendsBefore = telegram.callsOf('sendMessage').length;
    for (const chat of chats) telegram.pushUpdate(telegram.textMessage({ chatId: chat, text: `q-${chat} please`, from: { id: chat, first_name: `P${chat}` } }));
    // Killed the moment the fake has written its answer to a preview's sendMessage.
    const killedAfter = await telegram.waitFor((fake) => fake.callsOf('sendMessage').slice(sendsBefore).find((call) => call.answered && isPreview(call.params.text)), wait);
    await gateway!.kill();
    const onRecord = await previewsOnRecord();
    const shownAtKill = new Map(chats.map((chat) => [chat, telegram.messages(chat).map((message) => message.messageId)]));

    gateway = await start();
    await answered(chats);
    // Settled: every preview the restart knows of is finished (no more "…" outside the unheard ones).
    await telegram.waitFor(
      (fake) => (chats.every((chat) => fake.messages(chat).filter((message) => isPreview(message.text)).every((message) => onRecord.get(String(chat)) !== String(message.messageId))) ? true : undefined),
      wait,
    );
    for (const chat of chats) {
      const messages = telegram.messages(chat);
      const report = `chat ${chat} (killed after the preview of chat ${String(killedAfter.params.chat_id)}): ${JSON.stringify(messages.map((message) => [message.messageId, message.edits, message.text.slice(-12)]))}, on record ${onRecord.get(String(chat)) ?? 'none'}`;
      const whole = messages.filter((message) => !isPreview(message.text));
      expect(whole, report).toHaveLength(1);
      expect(whole[0]!.text, report).toMatch(new RegExp(`^Answer to q-${chat}: (streaming along, ){14}done\\.$`));
      const recorded = onRecord.get(String(chat));
      // A preview on record became the answer itself.
      if (recorded !== undefined) expect(String(whole[0]!.messageId), report).toBe(recorded);
      // A half preview is left only where the killed process never heard its id: sent before the
      // kill, never edited, not on record.
      for (const half of messages.filter((message) => isPreview(message.text))) {
        expect({ sentBeforeKill: shownAtKill.get(chat)!.includes(half.messageId), edits: half.edits, onRecord: recorded === String(half.messageId) }, report).toEqual({ sentBeforeKill: true, edits: 0, onRecord: false });
      }
    }
  }, 3 * wait);
});

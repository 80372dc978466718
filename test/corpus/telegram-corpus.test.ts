/**
 * The real Telegram payloads of the corpus (`test/fixtures/real-payloads/telegram.json`: Bot API docs
 * examples, library fixtures, recorded updates) through the real gateway process, by long polling
 * from the fake Bot API through grammY, each handled as its row of MANIFEST.md says: `reply` one
 * answer in the right chat and topic; `media` one answer or notice there; `soft` at most one, only
 * there; `silent` no answer and no model call; `notice` (a press on a button the bot never sent
 * or no longer has) no model call, the press answered, at most one short notice; `business` no
 * answer or one carrying its business connection. The process must stay up after each.
 *
 * A sample is done when a sentinel message sent after it, in the same conversation where it has
 * one, is answered: a conversation handles its messages in order, so by then the sample has been
 * turned into a turn or dropped. Everything the bot sent and the model was asked meanwhile,
 * bar the sentinel's, belongs to the sample.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeSentMessage, FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { approveGroups, pairPeople, telegramGroup } from '../helpers/approved-groups.ts';
import { pdfDocument } from '../helpers/document-bytes.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import { answerSentinels, askedFor, checkCommon, turnsSettled } from './corpus-checks.ts';
import { fill, objectsWith, samplesOf, type Sample } from './real-payloads.ts';

const ids = { ADMIN: 1001, USER: 2002, OTHER: 3003, GROUP: -1007770001, FORUM: -1008880001, BASICGROUP: -4440001, CHANNEL: -1009990001 };
const wait = 30_000;

/** A 2x2 JPEG, for the photos the samples name (the gateway decodes what it passes on). */
const jpeg = Buffer.from(
  '/9j/2wBDAAYEBQYFBAYGBQYHBwYIChAKCgkJChQODwwQFxQYGBcUFhYaHSUfGhsjHBYWICwgIyYnKSopGR8tMC0oMCUoKSj/2wBDAQcHBwoIChMKChMoGhYaKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCgoKCj/wAARCAACAAIDASIAAhEBAxEB/8QAFQABAQAAAAAAAAAAAAAAAAAAAAb/xAAUEAEAAAAAAAAAAAAAAAAAAAAA/8QAFQEBAQAAAAAAAAAAAAAAAAAABgf/xAAUEQEAAAAAAAAAAAAAAAAAAAAA/9oADAMBAAIRAxEAPwCAAHlhf//Z',
  'base64',
);

/** The bytes a file of the sample is served with: a real JPEG for photos, a real PDF for PDFs, a few bytes else. */
function bytesFor(holder: Record<string, unknown>, kind: string): Uint8Array {
  if (kind === 'photo') return jpeg;
  // A real one-page PDF: the gateway reads its text for the model.
  if (holder.mime_type === 'application/pdf') return pdfDocument([['A small document from the corpus']]);
  return Buffer.from(`${kind} bytes`);
}

/** Every chat a sample or its sentinel may be answered in. */
const chats = [...Object.values(ids), 4107];

/** The bot's messages standing in every chat (after edits; a deleted preview is gone), keyed `chat:id`. */
function standing(telegram: FakeTelegram): Map<string, FakeSentMessage> {
  return new Map(chats.flatMap((chat) => telegram.messages(chat)).map((message) => [`${message.chatId}:${message.messageId}`, message]));
}

/** The chat (and forum topic) a delivered update belongs to, if it has one. */
function conversationOf(update: Record<string, unknown>): { chat: number; thread?: number } | undefined {
  for (const value of Object.values(update)) {
    if (value === null || typeof value !== 'object') continue;
    const inner = value as { chat?: { id?: number }; message?: { chat?: { id?: number } }; from?: { id?: number }; message_thread_id?: number; is_topic_message?: boolean };
    const chat = inner.chat?.id ?? inner.message?.chat?.id;
    if (typeof chat === 'number') return { chat, thread: inner.is_topic_message ? inner.message_thread_id : undefined };
  }
  return undefined;
}

describe('the real Telegram payloads, through the gateway', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;
  let messageId = 50_000;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-corpus-telegram-');
    ({ model, telegram } = fakes);
    // The forum answers without a mention (MANIFEST: "answers without a mention there").
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ groups: { [`telegram:${ids.FORUM}`]: { requireMention: false } } }));
    await approveGroups(fakes.home, [ids.GROUP, ids.FORUM, ids.BASICGROUP, ids.CHANNEL].map(telegramGroup));
    await pairPeople(fakes.home, [{ platform: 'telegram', userId: String(ids.USER), name: 'Test Firstname' }]);
    answerSentinels(model);
    // Voice notes and audio are heard (the fake's transcription service), as where transcription is set up.
    gateway = await startTelegramGateway(fakes, [ids.ADMIN], 60_000, { env: { OPERATOR_TRANSCRIBE_BASE_URL: model.openaiBaseURL, OPERATOR_TRANSCRIBE_API_KEY: 'sk-corpus-transcription-0123456789' } });
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const placeholders = () => {
    const now = Math.floor(Date.now() / 1000);
    return {
      ...ids,
      NOW: now,
      'AGO:300': now - 300,
      'AGO:600': now - 600,
      MSGID: () => ++messageId,
      BOT_ID: telegram.bot.id,
      BOT_NAME: telegram.bot.username,
      // A command's entity length once it names this bot (`/report` -> `/report@operator_test_bot`).
      '*': (name: string) => (name.startsWith('LENAT:') ? `${name.slice('LENAT:'.length)}@${telegram.bot.username}`.length : undefined),
    };
  };

  /** Sends the sentinel after `sample` in its conversation and resolves once it is answered. */
  async function sentinelAfter(sample: Sample, delivered: Record<string, unknown>[]) {
    const place = conversationOf(delivered[0]!);
    const text = `sentinel ${sample.name}`;
    let chat = ids.ADMIN;
    let thread: number | undefined;
    if (place && place.chat === ids.USER) chat = ids.USER;
    else if (place && [ids.GROUP, ids.FORUM, ids.BASICGROUP].includes(place.chat)) {
      chat = place.chat;
      thread = place.thread;
    }
    const group = chat < 0;
    telegram.pushUpdate(
      telegram.textMessage({
        chatId: chat,
        chatType: chat === ids.BASICGROUP ? 'group' : undefined,
        threadId: thread,
        from: { id: group ? ids.ADMIN : chat, first_name: 'Sentinel' },
        text: group ? `@${telegram.bot.username} ${text}` : text,
      }),
    );
    await telegram
      .waitFor((fake) => fake.messages(chat).find((message) => message.text.includes(`ack ${sample.name}`)), wait)
      .catch((error: unknown) => {
        throw new Error(`the sentinel after ${sample.name} was not answered: ${String(error)}\n${gateway.output.all().slice(-4000)}`);
      });
  }

  for (const sample of samplesOf('telegram')) {
    it(`${sample.name}: ${sample.expect}`, async () => {
      const values = placeholders();
      const delivered = fill(sample.deliver, values) as Record<string, unknown>[];
      const where = fill(sample.where, values) as { chat?: number; thread?: number | null };
      for (const kind of ['photo', 'document', 'audio', 'voice', 'video', 'sticker', 'video_note', 'animation']) {
        for (const holder of objectsWith(delivered, kind)) {
          const items = Array.isArray(holder[kind]) ? (holder[kind] as Record<string, unknown>[]) : [holder[kind] as Record<string, unknown>];
          for (const item of items) if (item && typeof item.file_id === 'string') telegram.addFile(item.file_id, bytesFor(item, kind), `${kind}s/${item.file_id}`);
        }
      }
      const modelBefore = model.requests.length;
      const before = new Set(standing(telegram).keys());
      const updates = telegram.pushRaw(...delivered);
      const fresh = () => [...standing(telegram)].filter(([key]) => !before.has(key)).map(([, message]) => message);
      if (sample.expect === 'reply' || sample.expect === 'media') {
        await telegram
          .waitFor(() => fresh().find((message) => message.chatId === where.chat), wait)
          .catch((error: unknown) => {
            throw new Error(`no answer in ${where.chat} to ${sample.name}: ${String(error)}\n${gateway.output.all().slice(-4000)}`);
          });
      }
      await sentinelAfter(sample, delivered);
      await turnsSettled(gateway.output, wait);

      const sent = fresh().filter((message) => !message.text.includes(`ack ${sample.name}`));
      const asked = askedFor(model, modelBefore, sample.name);
      const inPlace = sent.filter(
        (message) => message.chatId === where.chat && (where.thread === undefined || (where.thread === null ? message.threadId === undefined : message.threadId === where.thread)),
      );
      const described = JSON.stringify(sent.map((message) => ({ chat: message.chatId, thread: message.threadId, kind: message.kind, text: message.text.slice(0, 160) })));
      // The document's text reaches the model with the message (read from the PDF served above).
      if (sample.name === 'doc-document-pdf') expect(asked.join('\n')).toContain('A small document from the corpus');
      if (checkCommon(sample.expect, { sent: sent.length, inPlace: inPlace.length, asked, described })) {
        expect(gateway.child.exitCode).toBeNull();
        return;
      }
      switch (sample.expect) {
        case 'notice': {
          expect(asked).toEqual([]);
          expect(sent.length, described).toBeLessThanOrEqual(1);
          const press = updates[0]!.callback_query!;
          expect(telegram.answeredCallbacks.map((answer) => answer.id)).toContain(press.id);
          break;
        }
        case 'business':
          expect(sent.every((message) => message.chatId === where.chat), described).toBe(true);
          expect(sent.length, described).toBeLessThanOrEqual(1);
          // An answer there is sent on behalf of the business account, through its connection.
          for (const call of telegram.calls.filter((call) => call.method.startsWith('send') && Number(call.params.chat_id) === where.chat)) {
            expect(call.params.business_connection_id, described).toBeDefined();
          }
          break;
        default:
          throw new Error(`no check for ${sample.expect}`);
      }
      expect(gateway.child.exitCode).toBeNull();
    }, 90_000);
  }
});

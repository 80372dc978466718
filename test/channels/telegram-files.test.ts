/**
 * Telegram files out: text then files as parts (photo or document, each in the forum topic), files
 * alone, the size limit, unreadable files, a refused photo sent again as a document, and upload
 * failures with what they report as delivered for the retry.
 */
import { truncate } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { type ConversationAddress, type OutboundFile } from '../../src/channels/types.ts';
import type { UploadedFile } from '../fakes/fake-telegram-request.ts';
import { deliveryFailure } from './delivery-failure.ts';
import { missingFile, textBytes, writeOutboundFiles } from './outbound-files.ts';
import { startTelegramHarness, type TelegramHarness } from './telegram-harness.ts';

const topic: ConversationAddress = { platform: 'telegram', conversationId: '-1001234567890', threadId: '17' };
const chatId = -1001234567890;
let harness: TelegramHarness;

async function start(adapter: Parameters<typeof startTelegramHarness>[0]['adapter'] = {}): Promise<TelegramHarness> {
  harness = await startTelegramHarness({ mode: 'polling', adapter });
  await harness.adapter.start({ onMessage: async () => {}, onAction: async () => {} });
  return harness;
}

const fileOf = async (name: string, mediaType: string, bytes: Uint8Array) => (await writeOutboundFiles([{ name, bytes, mediaType }]))[0]!;

/** A file of `size` zero bytes that takes no room on disk (sparse). */
async function emptyFileOf(name: string, mediaType: string, size: number): Promise<OutboundFile> {
  const file = await fileOf(name, mediaType, new Uint8Array());
  await truncate(file.path, size);
  return { ...file, size };
}

const named = (name: string) => (params: Record<string, unknown>) => (params.document as UploadedFile | undefined)?.name === name;

afterEach(async () => {
  await harness.adapter.stop();
  await harness.close();
});

describe('telegram files out', () => {
  it('sends the text, then each file as its own message, in order, in the forum topic', async () => {
    const { telegram, adapter } = await start();
    const report = await fileOf('report.pdf', 'application/pdf', textBytes('%PDF-1.7 report'));
    const notes = await fileOf('notes.txt', 'text/plain', textBytes('first line\nsecond line\n'));
    const { ids } = await adapter.send(topic, { text: 'Here are the **files**.', files: [report, notes] });
    const sent = telegram.messages(chatId, { threadId: 17 });
    expect(sent.map((message) => String(message.messageId))).toEqual(ids);
    expect(sent.map((message) => [message.kind, message.file?.name])).toEqual([
      ['text', undefined],
      ['document', 'report.pdf'],
      ['document', 'notes.txt'],
    ]);
    expect(sent[0]!.text).toBe('Here are the files.');
    expect(sent[1]!.file!.bytes).toEqual(textBytes('%PDF-1.7 report'));
    expect(sent[2]!.file!.bytes).toEqual(textBytes('first line\nsecond line\n'));
    expect(telegram.callsOf('sendDocument').map((call) => call.params.message_thread_id)).toEqual([17, 17]);
  });

  it('sends a PNG as a photo, a PDF, a GIF and an image over 10 MB as documents', async () => {
    const { telegram, adapter } = await start();
    const png = await fileOf('chart.png', 'image/png', new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
    const pdf = await fileOf('paper.pdf', 'application/pdf', textBytes('%PDF-1.4'));
    const gif = await fileOf('wave.gif', 'image/gif', textBytes('GIF89a'));
    const huge = await emptyFileOf('scan.jpg', 'image/jpeg', 10 * 1000 * 1000 + 1);
    await adapter.send(topic, { text: '', files: [png, pdf, gif, huge] });
    const sent = telegram.messages(chatId, { threadId: 17 });
    expect(sent.map((message) => [message.kind, message.file?.name])).toEqual([
      ['photo', 'chart.png'],
      ['document', 'paper.pdf'],
      ['document', 'wave.gif'],
      ['document', 'scan.jpg'],
    ]);
    expect(sent[0]!.file!.bytes).toEqual(new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]));
    expect(sent[3]!.file!.bytes.byteLength).toBe(10 * 1000 * 1000 + 1);
    expect(telegram.callsOf('sendPhoto').map((call) => call.params.message_thread_id)).toEqual([17]);
  });

  it('sends files alone when the text is empty: the first replies, the last carries the buttons', async () => {
    const { telegram, adapter } = await start();
    const first = await fileOf('a.txt', 'text/plain', textBytes('a'));
    const second = await fileOf('b.txt', 'text/plain', textBytes('b'));
    const { ids } = await adapter.send(topic, { text: '', files: [first, second], replyTo: '1', buttons: [[{ label: 'OK', data: 'ok' }]] });
    expect(ids).toHaveLength(2);
    expect(telegram.callsOf('sendMessage')).toEqual([]);
    const [one, two] = telegram.callsOf('sendDocument');
    expect(one!.params.reply_parameters).toEqual({ message_id: 1, allow_sending_without_reply: true });
    expect(one!.params.reply_markup).toBeUndefined();
    expect(two!.params.reply_parameters).toBeUndefined();
    expect(two!.params.reply_markup).toEqual({ inline_keyboard: [[{ text: 'OK', callback_data: 'ok' }]] });
  });

  it('sends a photo Telegram refuses again as a document', async () => {
    const { telegram, adapter, logs } = await start();
    const panorama = await fileOf('panorama.jpg', 'image/jpeg', textBytes('not really a jpeg'));
    telegram.failNext('sendPhoto', { status: 400, description: 'Bad Request: PHOTO_INVALID_DIMENSIONS' });
    const { ids } = await adapter.send(topic, { text: 'Wide one:', files: [panorama] });
    const sent = telegram.messages(chatId, { threadId: 17 });
    expect(sent.map((message) => message.kind)).toEqual(['text', 'document']);
    expect(sent.map((message) => String(message.messageId))).toEqual(ids);
    expect(sent[1]!.file).toEqual({ name: 'panorama.jpg', bytes: textBytes('not really a jpeg') });
    expect(logs.some((line) => line.includes('PHOTO_INVALID_DIMENSIONS'))).toBe(true);
  });

  it('refuses a file over the limit with a final error naming it, reporting the text already sent', async () => {
    const { telegram, adapter } = await start();
    const small = await fileOf('small.txt', 'text/plain', textBytes('fits'));
    const big = await emptyFileOf('backup.tar', 'application/x-tar', adapter.capabilities.maxFileBytes + 1);
    const long = `${'first part. '.repeat(300)}\n\n${'second part. '.repeat(300)}`;
    const error = await deliveryFailure(adapter.send(topic, { text: long, files: [small, big] }));
    expect(error.retryable).toBe(false);
    expect(error.message).toContain('backup.tar');
    expect(error.message).toContain('50,000,000');
    const sent = telegram.messages(chatId, { threadId: 17 });
    expect(sent.map((message) => message.kind)).toEqual(['text', 'text', 'document']);
    expect(error.delivered).toEqual(sent.map((message) => String(message.messageId)));
  });

  it('after a failed upload, a retry with skipParts sends only the files that did not arrive', async () => {
    const { telegram, adapter } = await start();
    const files = [await fileOf('one.txt', 'text/plain', textBytes('1')), await fileOf('two.txt', 'text/plain', textBytes('2')), await fileOf('three.txt', 'text/plain', textBytes('3'))];
    telegram.failNext('sendDocument', { status: 500, when: named('two.txt') });
    const error = await deliveryFailure(adapter.send(topic, { text: 'Three files:', files }));
    expect(error.retryable).toBe(true);
    expect(error.message).toContain('sendDocument');
    expect(error.message).not.toContain(telegram.token);
    expect(error.delivered).toHaveLength(2);
    const { ids } = await adapter.send(topic, { text: 'Three files:', files, skipParts: error.delivered.length });
    expect(ids).toHaveLength(2);
    const sent = telegram.messages(chatId, { threadId: 17 });
    expect(sent.map((message) => message.file?.name ?? message.text)).toEqual(['Three files:', 'one.txt', 'two.txt', 'three.txt']);
    expect(sent.map((message) => String(message.messageId))).toEqual([...error.delivered, ...ids]);
  });

  it('waits out a 429 on an upload for its retry_after and uploads the file once', async () => {
    const waits: number[] = [];
    const { telegram, adapter } = await start({ retry: { sleep: async (ms) => void waits.push(ms) } });
    const file = await fileOf('slow.csv', 'text/csv', textBytes('a,b\n1,2\n'));
    telegram.failNext('sendDocument', { status: 429, retryAfter: 3 });
    const { ids } = await adapter.send(topic, { text: '', files: [file] });
    expect(waits).toEqual([3000]);
    expect(telegram.callsOf('sendDocument').map((call) => call.status)).toEqual([429, 200]);
    expect(telegram.messages(chatId, { threadId: 17 }).map((message) => [String(message.messageId), message.file])).toEqual([[ids[0], { name: 'slow.csv', bytes: textBytes('a,b\n1,2\n') }]]);
  });

  it('gives up on a flood wait beyond the longest allowed with retryAfterMs, the text reported delivered', async () => {
    const { telegram, adapter } = await start({ retry: { maxWaitMs: 10_000, sleep: async () => {} } });
    const file = await fileOf('photo.webp', 'image/webp', textBytes('RIFF....WEBP'));
    telegram.failNext('sendPhoto', { status: 429, retryAfter: 60 });
    const error = await deliveryFailure(adapter.send(topic, { text: 'Look:', files: [file] }));
    expect(error).toMatchObject({ retryable: true, retryAfterMs: 60_000 });
    expect(error.delivered).toHaveLength(1);
    expect(telegram.callsOf('sendDocument')).toEqual([]);
  });

  it('refuses a file that cannot be read with a final error naming it', async () => {
    const { telegram, adapter } = await start();
    const missing = await missingFile('gone.pdf');
    const error = await deliveryFailure(adapter.send(topic, { text: 'Attached:', files: [missing] }));
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/gone\.pdf could not be read/);
    expect(error.delivered).toHaveLength(1);
    expect(telegram.callsOf('sendDocument')).toEqual([]);
  });
});

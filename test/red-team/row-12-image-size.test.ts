/**
 * Row 12 of issue 30: inbound images had no size limit (documents did). Tried again as the seat
 * that found it, through the real gateway process (Telegram long polling): a member of a group
 * the bot answers in, with no grant, sends images larger than 20 MB. The size Telegram declares
 * (in the message, or in getFile's answer when the message gives none) is checked before any
 * download; nothing is downloaded, the model is told the image was not read, and no form of a
 * planted secret reaches the model or the chat. The member is told in the chat once an hour (the
 * gateway's "saying why" limiter, docs/security.md): their next file too large within the hour
 * gets no second notice, and the model's line naming the file is how the answer says which it
 * was. The refusal is in the log each time (`files.refused`, with whether it was told).
 *
 * Mutation check (run by hand, 2026-11): with `download` in `src/gateway/files/inbound-files.ts`
 * not looking at the declared size and `downloadFile` in `src/channels/telegram/attachments.ts`
 * not looking at getFile's, the three refusal tests fail (the files are fetched); with the
 * gateway's images read as before this change (no limit at all), the 21 MB photo reaches the
 * model as an image and nobody is told.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Update } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer, RecordedRequest } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { everythingSentToModel, expectNoSecretIn } from '../helpers/secret-forms.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = 1001;
const member = { id: 3003, first_name: 'Mallory' };
/** Another member: the notice of a document too large is hers to hear (Mallory heard the reason this hour). */
const other = { id: 3004, first_name: 'Trudy' };
const group = -100777;
const wait = 20_000;
/** Each test waits for a notice and an answer; the machine may be busy. */
const testTimeout = 60_000;
const plantedToken = 'ghp_rowTwelvePlanted0123456789abcdefABCD';

/** 21 MB of a recognisable pattern: its base64 would show if any of it reached the model. */
function bigImage(): Uint8Array {
  const pattern = new TextEncoder().encode('BIGPHOTO');
  const bytes = new Uint8Array(21 * 1024 * 1024);
  for (let at = 0; at < bytes.length; at += pattern.length) bytes.set(pattern.subarray(0, bytes.length - at), at);
  return bytes;
}

/** The file ids of the photo sizes of `update`. */
const photoIds = (update: Update) => update.message!.photo!.map((size) => size.file_id);

/** The content blocks of the last message of `request`. */
function lastContent(request: RecordedRequest): { type: string; text?: string }[] {
  const content = (request.body.messages as { content: unknown }[]).at(-1)!.content;
  return typeof content === 'string' ? [{ type: 'text', text: content }] : (content as { type: string; text?: string }[]);
}

describe('row 12: inbound images are capped like documents (a group member, through the gateway)', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;
  let secrets: string[];

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-row-12-');
    ({ model, telegram } = fakes);
    // A group the bot answers in; the member has no grant.
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ allowlists: { telegram: { chats: [String(group)] } } }));
    gateway = await startTelegramGateway(fakes, [admin], 30_000, { env: { GITHUB_TOKEN: plantedToken } });
    secrets = [telegram.token, fakes.env([admin]).ANTHROPIC_API_KEY!, plantedToken];
  }, testTimeout);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const find = (contains: string) => findBotMessage(telegram, gateway, group, contains, wait);
  const chatText = () => telegram.messages(group).map((message) => message.text).join('\n');
  const getFileOf = (ids: readonly string[]) => telegram.callsOf('getFile').filter((call) => ids.includes(String(call.params.file_id)));

  /** Sends `update`, waits for the notice and the model's answer; resolves to the model's request. */
  async function send(update: Update, answer: string): Promise<RecordedRequest> {
    const requests = model.requests.length;
    model.enqueue({ text: answer });
    telegram.pushUpdate(update);
    await find(answer);
    expect(model.requests).toHaveLength(requests + 1);
    return model.requests.at(-1)!;
  }

  it('refuses a photo Telegram declares larger than 20 MB before any download, and tells the member', async () => {
    const update = telegram.photoMessage({ chatId: group, from: member, caption: `@${telegram.bot.username} what is in this picture?`, bytes: bigImage() });
    const downloads = telegram.fileDownloads.length;
    const request = await send(update, 'I could not look at it.');
    const notice = await find('larger than the 20.0 MB');
    expect(notice.text).toBe('Your image (21.0 MB) is larger than the 20.0 MB I can take, so I did not take it. Send a smaller file, or a link to it.');
    // Not asked for, not fetched.
    expect(getFileOf(photoIds(update))).toEqual([]);
    expect(telegram.fileDownloads.length).toBe(downloads);
    const content = lastContent(request);
    expect(content.some((block) => block.type === 'image')).toBe(false);
    expect(content.map((block) => block.text ?? '').join('')).toContain('[an image came with this message but was not read: it is too large (21.0 MB; the limit is 20.0 MB)]');
    expect(JSON.stringify(request.body)).not.toContain(Buffer.from('BIGPHOTOBIGPHOTO').toString('base64').slice(0, 16));
    expectNoSecretIn(everythingSentToModel(model.requests), secrets, 'the model');
    expectNoSecretIn(chatText(), secrets, 'the chat');
  }, testTimeout);

  it("refuses one whose size only getFile declares, without downloading it (the member, told this hour, is not told again)", async () => {
    const update = telegram.photoMessage({ chatId: group, from: member, caption: `@${telegram.bot.username} and this one?`, bytes: bigImage() });
    // The message says no size: the gateway learns it from getFile, before the download.
    for (const size of update.message!.photo!) delete (size as { file_size?: number }).file_size;
    const downloads = telegram.fileDownloads.length;
    const noticesBefore = telegram.messages(group).filter((message) => message.text.includes('larger than')).length;
    const request = await send(update, 'That one neither.');
    // The log has the refusal, not told: Mallory heard the reason in the first test, this hour.
    await gateway.output.waitFor(/"files\.refused"[^\n]*"told":false/, { stream: 'all', timeoutMs: wait, label: 'the untold refusal in the log' });
    // The notice goes out before the turn's model call, so by the answer it would be there: none.
    expect(telegram.messages(group).filter((message) => message.text.includes('larger than'))).toHaveLength(noticesBefore);
    // getFile named the size (21 MB), so the file itself was never fetched.
    expect(getFileOf(photoIds(update)).length).toBe(1);
    expect(telegram.fileDownloads.length).toBe(downloads);
    expect(lastContent(request).some((block) => block.type === 'image')).toBe(false);
    // What the member is not told again, the model is: the answer can say which file was left out.
    expect(lastContent(request).map((block) => block.text ?? '').join('')).toContain('[an image came with this message but was not read: it is too large (21.0 MB; the limit is 20.0 MB)]');
    expectNoSecretIn(everythingSentToModel(model.requests), secrets, 'the model');
    expectNoSecretIn(chatText(), secrets, 'the chat');
  }, testTimeout);

  it('still takes an image within the limit', async () => {
    const small = new TextEncoder().encode('a small picture'.padEnd(4096, '.'));
    const ok = await send(telegram.photoMessage({ chatId: group, from: member, caption: `@${telegram.bot.username} this one is small`, bytes: small }), 'A small picture.');
    expect(lastContent(ok).some((block) => block.type === 'image')).toBe(true);
  }, testTimeout);

  it('tells a member of a document too large, as of an image', async () => {
    const document = telegram.documentMessage({ chatId: group, from: other, fileName: 'dump.bin', mimeType: 'application/octet-stream', bytes: new Uint8Array(21 * 1024 * 1024), caption: `@${telegram.bot.username} keep this` });
    const downloads = telegram.fileDownloads.length;
    const request = await send(document, 'Too big to keep.');
    const notice = await find('dump.bin (21.0 MB)');
    expect(notice.text).toBe('Your file dump.bin (21.0 MB) is larger than the 20.0 MB I can take, so I did not take it. Send a smaller file, or a link to it.');
    expect(telegram.fileDownloads.length).toBe(downloads);
    expect(lastContent(request).map((block) => block.text ?? '').join('')).toContain('[file not saved: dump.bin is too large (21.0 MB; the limit is 20.0 MB)]');
    expectNoSecretIn(everythingSentToModel(model.requests), secrets, 'the model');
    expectNoSecretIn(chatText(), secrets, 'the chat');
  }, testTimeout);
});

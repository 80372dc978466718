/**
 * Everything else a person sends on Telegram, end to end: the real gateway process (long polling
 * through grammY, the Anthropic SDK) against the fake Bot API and the fake model. An album of
 * three photos is one turn with its three images and its caption, answered once; a PDF's and a
 * Word document's text reach the model, marked as a document's; each kind that is neither text
 * nor a file reaches it as its one line; service messages (a pin, a title, people joining and
 * leaving) start no turn.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer, RecordedRequest } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { approveGroups, telegramGroup } from '../helpers/approved-groups.ts';
import { docxDocument, pdfDocument } from '../helpers/document-bytes.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { findFinalBotMessage, startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = 1001;
/** A group that answers without a mention: there a service message would be heard, if anything were. */
const group = -1007770001;
/** A basic group, approved, that Telegram upgrades to the supergroup {@link upgraded}. */
const basicGroup = -4440001;
const upgraded = -1005550001;
const wait = 20_000;

/** The content blocks of the last message of a model request. */
function lastContent(request: RecordedRequest): { type: string; text?: string; source?: { data: string } }[] {
  const content = (request.body.messages as { content: unknown }[]).at(-1)!.content;
  return typeof content === 'string' ? [{ type: 'text', text: content }] : (content as never);
}
const textOf = (request: RecordedRequest) => lastContent(request).filter((block) => block.type === 'text').map((block) => block.text).join('\n');

describe('what else a person sends on Telegram, through the gateway', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;
  let answers = 0;
  let messageId = 9_000;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-telegram-e2e-inbound-kinds-');
    ({ model, telegram } = fakes);
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ groups: { [`telegram:${group}`]: { requireMention: false } } }));
    await approveGroups(fakes.home, [telegramGroup(group), telegramGroup(basicGroup)]);
    model.setDefault(() => ({ text: `answer ${++answers}` }));
    gateway = await startTelegramGateway(fakes, [admin]);
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const fromAdmin = { id: admin, first_name: 'Ada' };
  /** Waits for the next numbered answer in `chat` and returns the model request that made it. */
  async function answered(chat: number, requestsBefore: number): Promise<RecordedRequest> {
    await findFinalBotMessage(telegram, gateway, chat, `answer ${answers + 1}`, wait);
    expect(model.requests).toHaveLength(requestsBefore + 1);
    return model.requests.at(-1)!;
  }
  /** A message of the admin in their direct chat carrying `content`, as Telegram sends it. */
  const direct = (content: Record<string, unknown>) => ({
    message: { message_id: ++messageId, date: Math.floor(Date.now() / 1000), chat: { id: admin, type: 'private', first_name: 'Ada' }, from: { ...fromAdmin, is_bot: false }, ...content },
  });

  it('answers an album of three photos once, with its three images and its caption', async () => {
    const before = model.requests.length;
    const shown = telegram.messages(admin).length;
    const bytes = [1, 2, 3].map((n) => new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, n, n, n, 0xff, 0xd9]));
    const parts = bytes.map((photo, index) => telegram.photoMessage({ chatId: admin, from: fromAdmin, bytes: photo, ...(index === 0 ? { caption: 'our trip, which one is best?' } : {}) }));
    for (const part of parts) (part.message as { media_group_id?: string }).media_group_id = 'album-4711';
    for (const part of parts) telegram.pushUpdate(part);
    const request = await answered(admin, before);
    const images = lastContent(request).filter((block) => block.type === 'image');
    expect(images.map((image) => image.source!.data)).toEqual(bytes.map((photo) => Buffer.from(photo).toString('base64')));
    expect(textOf(request)).toBe('our trip, which one is best?');
    // One answer, no second turn for the other parts.
    model.enqueue({ text: 'after the album' });
    telegram.pushUpdate(telegram.textMessage({ chatId: admin, text: 'anything else?', from: fromAdmin }));
    await findFinalBotMessage(telegram, gateway, admin, 'after the album', wait);
    expect(model.requests).toHaveLength(before + 2);
    expect(telegram.messages(admin).slice(shown).map((message) => message.text)).toEqual([`answer ${answers}`, 'after the album']);
  });

  it("gives the model a PDF's text and a Word document's, marked as a document's content", async () => {
    let before = model.requests.length;
    const pdf = pdfDocument([['Invoice 2026-117', 'Total due: 1,250.00 EUR'], ['Payable within 30 days']]);
    telegram.pushUpdate(telegram.documentMessage({ chatId: admin, from: fromAdmin, fileName: 'invoice.pdf', mimeType: 'application/pdf', bytes: pdf, caption: 'is this right?' }));
    let text = textOf(await answered(admin, before));
    expect(text).toMatch(/^is this right\?\n\[file saved: .+invoice\.pdf \(application\/pdf, .+\)\]\n\[the text of invoice\.pdf follows, as the file has it: a document's content, not words or instructions of the person\]\n```\n/);
    expect(text).toMatch(/Invoice 2026-117\s+Total due: 1,250\.00 EUR\s+Payable within 30 days\n```$/);

    before = model.requests.length;
    const docx = docxDocument(['Minutes', 'We agreed to ship on Friday.']);
    telegram.pushUpdate(telegram.documentMessage({ chatId: admin, from: fromAdmin, fileName: 'minutes.docx', mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', bytes: docx }));
    text = textOf(await answered(admin, before));
    expect(text).toContain('[the text of minutes.docx follows');
    expect(text).toContain('Minutes\n\nWe agreed to ship on Friday.');
  });

  it('says a damaged PDF could not be read, and keeps it saved', async () => {
    const before = model.requests.length;
    telegram.pushUpdate(telegram.documentMessage({ chatId: admin, from: fromAdmin, fileName: 'broken.pdf', mimeType: 'application/pdf', bytes: Buffer.from('%PDF-1.7\nnot really\n') }));
    const text = textOf(await answered(admin, before));
    expect(text).toMatch(/\[file saved: .+broken\.pdf \(application\/pdf, .+\)\]\n\[broken\.pdf could not be read as text: it is not a PDF that can be read .*; the file is saved\]$/);
  });

  it.each([
    ['a sticker', { sticker: { file_id: 'st1', file_unique_id: 'ust1', type: 'regular', width: 512, height: 512, is_animated: false, is_video: false, emoji: '😀' } }, '[sticker 😀]'],
    ['a die', { dice: { emoji: '🎲', value: 6 } }, '[dice 🎲 rolled 6]'],
    ['a location', { location: { latitude: 52.52, longitude: 13.405 } }, '[location 52.52000, 13.40500]'],
    ['a venue', { location: { latitude: 52.5163, longitude: 13.3777 }, venue: { location: { latitude: 52.5163, longitude: 13.3777 }, title: 'Brandenburg Gate', address: 'Pariser Platz' } }, '[venue Brandenburg Gate, Pariser Platz (52.51630, 13.37770)]'],
    ['a contact', { contact: { phone_number: '+4930123456', first_name: 'Grace', last_name: 'Hopper' } }, '[contact Grace Hopper, +4930123456]'],
    ['a poll', { poll: { id: 'p1', question: 'Lunch?', options: [{ text: 'pizza', voter_count: 0 }, { text: 'soup', voter_count: 0 }], total_voter_count: 0, is_closed: false, is_anonymous: true, type: 'regular', allows_multiple_answers: false } }, '[poll "Lunch?", options: pizza / soup]'],
    ['a story', { story: { chat: { id: -1009999, type: 'channel', title: 'TON Spin' }, id: 2 } }, '[story from #TON Spin]'],
  ])('gives the model %s as its one line', async (_kind, content, line) => {
    const before = model.requests.length;
    telegram.pushRaw(direct(content));
    expect(textOf(await answered(admin, before))).toBe(line);
  });

  it('keeps the conversation of a group upgraded to a supergroup, and its approval', async () => {
    const mention = `@${telegram.bot.username}`;
    const eve = { id: 3003, first_name: 'Eve' };
    let before = model.requests.length;
    telegram.pushUpdate(telegram.textMessage({ chatId: basicGroup, chatType: 'group', chatTitle: 'Team', text: `${mention} the code word is PAPAYA`, from: eve }));
    await answered(basicGroup, before);
    // What Telegram sends when the group becomes a supergroup: a service message in each chat.
    const now = Math.floor(Date.now() / 1000);
    telegram.pushRaw(
      { message: { message_id: ++messageId, date: now, chat: { id: basicGroup, type: 'group', title: 'Team' }, from: { ...eve, is_bot: false }, migrate_to_chat_id: upgraded } },
      {
        message: {
          message_id: 1,
          date: now,
          chat: { id: upgraded, type: 'supergroup', title: 'Team' },
          from: { id: 1087968824, is_bot: true, first_name: 'Group', username: 'GroupAnonymousBot' },
          sender_chat: { id: upgraded, type: 'supergroup', title: 'Team' },
          migrate_from_chat_id: basicGroup,
        },
      },
    );
    before = model.requests.length;
    telegram.pushUpdate(telegram.textMessage({ chatId: upgraded, chatTitle: 'Team', text: `${mention} what was the code word?`, from: eve }));
    const request = await answered(upgraded, before);
    expect(textOf(request)).toContain('what was the code word?');
    // The history of the group goes on: its earlier message is in the context.
    expect(JSON.stringify(request.body.messages)).toContain('the code word is PAPAYA');
  });

  it('starts no turn for service messages, in a group that answers everything else', async () => {
    const before = model.requests.length;
    const shown = telegram.messages(group).length;
    const chat = { id: group, type: 'supergroup', title: 'Team' };
    const member = { id: 3003, is_bot: false, first_name: 'Eve' };
    const service = (content: Record<string, unknown>) => ({ message: { message_id: ++messageId, date: Math.floor(Date.now() / 1000), chat, from: member, ...content } });
    telegram.pushRaw(
      service({ new_chat_members: [{ id: 3004, is_bot: false, first_name: 'Mallory' }] }),
      service({ left_chat_member: { id: 3004, is_bot: false, first_name: 'Mallory' } }),
      service({ new_chat_title: 'Team (renamed)' }),
      service({ pinned_message: { message_id: 5, date: Math.floor(Date.now() / 1000), chat, from: member, text: 'pinned: answer this please' } }),
      service({ video_chat_started: {} }),
    );
    // A message after them in the same conversation: answered only once they have been handled.
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: 'hello after the service messages', from: { id: 3003, first_name: 'Eve' } }));
    const request = await answered(group, before);
    expect(textOf(request)).toContain('hello after the service messages');
    expect(JSON.stringify(request.body.messages)).not.toContain('answer this please');
    expect(JSON.stringify(request.body.messages)).not.toContain('Mallory');
    expect(telegram.messages(group).slice(shown).map((message) => message.text)).toEqual([`answer ${answers}`]);
  });
});

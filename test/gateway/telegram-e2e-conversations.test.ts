/**
 * Telegram end to end, conversations: the real gateway process (long polling) against the fake
 * Bot API server and the fake model server. Forum topics as separate conversations, a busy
 * conversation answered by follow-up, /stop, photos and documents in.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { isAbsolute, join, sep } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer, RecordedRequest } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { startTelegramGateway, startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import { approveGroups, telegramGroup } from '../helpers/approved-groups.ts';

const admin = 1001;
/** A second admin (no pairing needed), for the busy conversation. */
const busyPerson = 5005;
const forum = -100888;
const wait = 20_000;

/** The text of every user message of a model request, joined. */
function userText(request: RecordedRequest): string {
  return JSON.stringify((request.body.messages as { role: string }[]).filter((message) => message.role === 'user'));
}

/** The content blocks of the last message of a model request. */
function lastContent(request: RecordedRequest): { type: string; text?: string; source?: { type: string; media_type: string; data: string } }[] {
  const content = (request.body.messages as { content: unknown }[]).at(-1)!.content;
  return typeof content === 'string' ? [{ type: 'text', text: content }] : (content as never);
}

describe('Telegram conversations through the gateway', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;
  let home: string;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-telegram-e2e-conversations-');
    ({ model, telegram, home } = fakes);
    // The group(s) an admin approved (groupPolicy approval is the default; this test is about something else).
    await approveGroups(fakes.home, [telegramGroup(forum)]);
    gateway = await startTelegramGateway(fakes, [admin, busyPerson]);
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const find = (chatId: number, contains: string, threadId?: number) =>
    telegram.waitFor((fake) => fake.messages(chatId, { threadId }).find((message) => message.text.includes(contains)), wait).catch((error: unknown) => {
      throw new Error(`no message containing "${contains}" in chat ${chatId}: ${String(error)}\n${gateway.output.all()}`);
    });
  const fromAdmin = { id: admin, first_name: 'Ada' };

  it('answers in the forum topic it was asked in, and keeps each topic a conversation of its own', async () => {
    const mention = `@${telegram.bot.username}`;
    const member = { id: 3005, first_name: 'Eve' };
    model.enqueue({ text: 'Topic 17: ship on Monday.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: forum, threadId: 17, text: `${mention} when do we ship the seventeen plan?`, from: member }));
    const first = await find(forum, 'Topic 17: ship on Monday.', 17);
    expect(first.threadId).toBe(17);
    expect(first.replyToMessageId).toBeDefined();
    expect(telegram.callsOf('sendMessage').filter((call) => call.params.chat_id === forum).every((call) => call.params.message_thread_id === 17)).toBe(true);

    model.enqueue({ text: 'Topic 18: no plan yet.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: forum, threadId: 18, text: `${mention} and the eighteen plan?`, from: member }));
    const second = await find(forum, 'Topic 18: no plan yet.', 18);
    expect(second.threadId).toBe(18);
    const inTopic18 = model.requests.at(-1)!;
    expect(userText(inTopic18)).toContain('and the eighteen plan?');
    expect(JSON.stringify(inTopic18.body.messages)).not.toContain('seventeen');
    expect(JSON.stringify(inTopic18.body.messages)).not.toContain('ship on Monday');

    // Back in topic 17 the model sees that topic's history, and nothing of topic 18.
    model.enqueue({ text: 'Topic 17 again.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: forum, threadId: 17, text: `${mention} remind me?`, from: member }));
    await find(forum, 'Topic 17 again.', 17);
    const backIn17 = JSON.stringify(model.requests.at(-1)!.body.messages);
    expect(backIn17).toContain('seventeen plan');
    expect(backIn17).toContain('Topic 17: ship on Monday.');
    expect(backIn17).not.toContain('eighteen');
    expect(telegram.messages(forum, { threadId: 17 })).toHaveLength(2);
    expect(telegram.messages(forum, { threadId: 18 })).toHaveLength(1);
  });

  it('answers messages sent during a turn together after it (follow-up), none lost and none twice', async () => {
    const chat = busyPerson;
    const person = { id: chat, first_name: 'Fay' };
    const slow = `The first answer streams slowly, ${'word by word, '.repeat(8)}and ends here.`;
    const before = model.requests.length;

    model.enqueue({ text: slow, chunkSize: 4, delayMs: 60 }, { text: 'Both follow-ups answered.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: chat, text: 'first question', from: person }));
    // The draft shows the turn is streaming (a DM); two more messages arrive meanwhile.
    await telegram.waitFor((fake) => fake.drafts(chat).find((draft) => draft.text.startsWith('The first answer')), wait);
    telegram.pushUpdate(telegram.textMessage({ chatId: chat, text: 'second question', from: person }));
    telegram.pushUpdate(telegram.textMessage({ chatId: chat, text: 'third question', from: person }));

    const followUp = await find(chat, 'Both follow-ups answered.');
    const first = telegram.messages(chat).find((message) => message.text.startsWith('The first answer'))!;
    expect(first.text).toBe(slow);
    expect(followUp.messageId).toBeGreaterThan(first.messageId);
    const requests = model.requests.slice(before);
    expect(requests).toHaveLength(2);
    expect(userText(requests[0]!)).not.toContain('second question');
    const together = lastContent(requests[1]!).map((block) => block.text ?? '').join('');
    expect(together).toContain('second question');
    expect(together).toContain('third question');
    expect(userText(requests[1]!)).toContain('first question');

    // Anything still queued would be answered before this.
    model.enqueue({ text: 'Fourth answer.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: chat, text: 'fourth question', from: person }));
    await find(chat, 'Fourth answer.');
    expect(model.requests).toHaveLength(before + 3);
    expect(lastContent(model.requests.at(-1)!).map((block) => block.text ?? '').join('')).toBe('fourth question');
    const texts = telegram.messages(chat).map((message) => message.text);
    expect(texts.filter((text) => text === slow)).toHaveLength(1);
    expect(texts.filter((text) => text === 'Both follow-ups answered.')).toHaveLength(1);
    expect(texts.filter((text) => text === 'Fourth answer.')).toHaveLength(1);
    expect(model.pending()).toBe(0);
  });

  it("gives another person's message during a turn a turn of its own, with that person's rights", async () => {
    const mention = `@${telegram.bot.username}`;
    const member = { id: 3006, first_name: 'Eve' };
    // The gateway has talked in topic 31, so a job may be aimed there (by an admin).
    model.enqueue({ text: 'Topic 31 noted.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: forum, threadId: 31, text: `${mention} note topic 31`, from: fromAdmin }));
    await find(forum, 'Topic 31 noted.', 31);

    const slow = `Ada's answer streams slowly, ${'word by word, '.repeat(8)}and ends here.`;
    const deliver = `telegram:${forum}:31`;
    model.enqueue(
      { text: slow, chunkSize: 4, delayMs: 60 },
      { toolCalls: [{ name: 'schedule', arguments: { action: 'create', delay_seconds: 3600, prompt: 'Post in topic 31.', deliver } }] },
      { text: 'Eve, that was not allowed.' },
    );
    const before = model.requests.length;
    telegram.pushUpdate(telegram.textMessage({ chatId: forum, threadId: 30, text: `${mention} Ada asks something long`, from: fromAdmin }));
    await telegram.waitFor((fake) => fake.messages(forum, { threadId: 30 }).find((message) => message.text.startsWith("Ada's answer") && message.text.endsWith('…')), wait);
    telegram.pushUpdate(telegram.textMessage({ chatId: forum, threadId: 30, text: `${mention} Eve wants a job in topic 31`, from: member }));

    // Ada's words are in the topic's context, so Eve's turn is tainted: the schedule call asks
    // first (taint-e2e.test.ts); Eve, the speaker, allows it, and her seat's rights still decide.
    const question = await telegram.waitFor((fake) => fake.messages(forum, { threadId: 30 }).find((message) => message.text.includes('this turn read untrusted content')), wait);
    telegram.pushUpdate(telegram.callbackQuery({ chatId: forum, from: member, data: 'approve', messageId: question.messageId }));
    await find(forum, 'Eve, that was not allowed.', 30);
    const requests = model.requests.slice(before);
    expect(requests).toHaveLength(3);
    expect(userText(requests[0]!)).not.toContain('Eve wants a job');
    // Eve's turn starts after Ada's answer, from Eve's message alone.
    expect(lastContent(requests[1]!).map((block) => block.text ?? '').join('')).toContain('Eve wants a job in topic 31');
    expect(JSON.stringify(requests[1]!.body.messages)).toContain('and ends here.');
    // In Ada's turn the schedule tool would have acted with an admin's rights; in Eve's it refuses.
    expect(JSON.stringify(requests[2]!.body.messages.at(-1))).toContain('only an admin may schedule a job for another conversation');
  });

  it('stops a running turn with /stop, and the conversation keeps working', async () => {
    const ending = 'THE-END-OF-THE-LONG-ANSWER';
    const long = `A very long answer begins, ${'and goes on, '.repeat(40)}${ending}`;
    model.enqueue({ text: long, chunkSize: 4, delayMs: 50 });
    const requestsBefore = model.requests.length;
    telegram.pushUpdate(telegram.textMessage({ chatId: admin, text: 'tell me everything', from: fromAdmin }));
    await telegram.waitFor((fake) => fake.drafts(admin).find((draft) => draft.text.startsWith('A very long answer')), wait);
    telegram.pushUpdate(telegram.textMessage({ chatId: admin, text: '/stop', from: fromAdmin }));
    await find(admin, 'Stopping.');
    // The turn ends: what was streamed so far is sent as the final text, in the draft's place.
    const stopped = await telegram.waitFor((fake) => fake.messages(admin).find((message) => message.text.startsWith('A very long answer') && !message.text.endsWith('…')), wait);
    expect(stopped.text).not.toContain(ending);

    model.enqueue({ text: 'Still here.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: admin, text: 'are you there?', from: fromAdmin }));
    await find(admin, 'Still here.');
    expect(model.requests).toHaveLength(requestsBefore + 2);
    expect(telegram.messages(admin).some((message) => message.text.includes(ending))).toBe(false);
  });

  it('gives the model a photo as an image', async () => {
    const bytes = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 74, 70, 73, 70, 0, 1, 2, 3, 4, 5, 0xff, 0xd9]);
    model.enqueue({ text: 'A tiny picture.' });
    telegram.pushUpdate(telegram.photoMessage({ chatId: admin, caption: 'what is this?', bytes, from: fromAdmin }));
    await find(admin, 'A tiny picture.');
    const content = lastContent(model.requests.at(-1)!);
    expect(content.find((block) => block.type === 'text')?.text).toBe('what is this?');
    expect(content.find((block) => block.type === 'image')?.source).toEqual({ type: 'base64', media_type: 'image/jpeg', data: Buffer.from(bytes).toString('base64') });
  });

  it('saves documents in the profile\'s temp folder and tells the model where', async () => {
    const temp = join(home, 'profiles', 'default', 'temp');
    const savedPath = (request: RecordedRequest, size: string) => {
      const text = lastContent(request).map((block) => block.text ?? '').join('');
      const match = /\[file saved: (.+) \((.+), (.+)\)\]/.exec(text);
      expect(match, text).not.toBeNull();
      expect(match![2]).toBe('text/plain');
      expect(match![3]).toBe(size);
      return match![1]!;
    };
    const first = new TextEncoder().encode('first version of the notes');
    model.enqueue({ text: 'Read the notes.' });
    telegram.pushUpdate(telegram.documentMessage({ chatId: admin, fileName: 'notes.txt', mimeType: 'text/plain', bytes: first, caption: 'please read', from: fromAdmin }));
    await find(admin, 'Read the notes.');
    const firstPath = savedPath(model.requests.at(-1)!, `${first.length} bytes`);
    expect(lastContent(model.requests.at(-1)!).map((block) => block.text ?? '').join('')).toContain('please read');
    expect(isAbsolute(firstPath)).toBe(true);
    expect(firstPath.startsWith(temp + sep)).toBe(true);
    expect(firstPath.endsWith(`${sep}notes.txt`)).toBe(true);
    expect(readFileSync(firstPath)).toEqual(Buffer.from(first));

    // The same name again: a new file next to it; the first is left alone.
    const second = new TextEncoder().encode('second version, a little longer');
    model.enqueue({ text: 'Read the new notes.' });
    telegram.pushUpdate(telegram.documentMessage({ chatId: admin, fileName: 'notes.txt', mimeType: 'text/plain', bytes: second, from: fromAdmin }));
    await find(admin, 'Read the new notes.');
    const secondPath = savedPath(model.requests.at(-1)!, `${second.length} bytes`);
    expect(secondPath).not.toBe(firstPath);
    expect(secondPath.startsWith(temp + sep)).toBe(true);
    expect(readFileSync(secondPath)).toEqual(Buffer.from(second));
    expect(readFileSync(firstPath)).toEqual(Buffer.from(first));

    // A name that tries to leave the folder stays inside it.
    const sneaky = new TextEncoder().encode('escape attempt');
    model.enqueue({ text: 'Read the sneaky one.' });
    telegram.pushUpdate(telegram.documentMessage({ chatId: admin, fileName: '../../../escape.txt', mimeType: 'text/plain', bytes: sneaky, from: fromAdmin }));
    await find(admin, 'Read the sneaky one.');
    const sneakyPath = savedPath(model.requests.at(-1)!, `${sneaky.length} bytes`);
    expect(sneakyPath.startsWith(temp + sep)).toBe(true);
    expect(sneakyPath.includes('..')).toBe(false);
    expect(readFileSync(sneakyPath)).toEqual(Buffer.from(sneaky));
    expect(existsSync(join(home, 'escape.txt'))).toBe(false);

    // Too large: not downloaded, not saved, and the model is told.
    const filesBefore = readdirSync(temp, { recursive: true }).length;
    const downloadsBefore = telegram.callsOf('getFile').length;
    model.enqueue({ text: 'Too big for me.' });
    telegram.pushUpdate(telegram.documentMessage({ chatId: admin, fileName: 'huge.bin', mimeType: 'application/octet-stream', bytes: new Uint8Array(21 * 1024 * 1024), from: fromAdmin }));
    await find(admin, 'Too big for me.');
    expect(lastContent(model.requests.at(-1)!).map((block) => block.text ?? '').join('')).toMatch(/\[file not saved: huge\.bin is too large \(21\.0 MB; the limit is 20\.0 MB\)\]/);
    expect(readdirSync(temp, { recursive: true })).toHaveLength(filesBefore);
    expect(telegram.callsOf('getFile')).toHaveLength(downloadsBefore);
  });
});

/**
 * `editedMessages: "reanswer"` end to end: the real gateway process against the fake Bot API and
 * the fake model. A message edited while it waits behind a running turn is answered in its new
 * wording, once; an edit of a message already answered changes nothing. Telegram is asked for
 * edits only then (`allowed_updates`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Message } from 'grammy/types';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastUserText } from '../corpus/corpus-checks.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { findFinalBotMessage, startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = 1001;
const wait = 20_000;

describe('messages edited before their turn, through the gateway', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-telegram-e2e-edited-');
    ({ model, telegram } = fakes);
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ editedMessages: 'reanswer' }));
    gateway = await startTelegramGateway(fakes, [admin]);
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const from = { id: admin, first_name: 'Ada' };
  const say = (text: string) => {
    const update = telegram.textMessage({ chatId: admin, text, from });
    telegram.pushUpdate(update);
    return update.message!;
  };
  /** Telegram's update for `message` edited to `text` (same id and date, an `edit_date`). */
  const edit = (message: Message, text: string) => telegram.pushRaw({ edited_message: { ...message, text, entities: [], edit_date: Math.floor(Date.now() / 1000) } });
  const find = (text: string) => findFinalBotMessage(telegram, gateway, admin, text, wait);

  it('answers the new wording of a message edited while it waited, once', async () => {
    const before = model.requests.length;
    let release = () => {};
    model.enqueue({ text: 'first answer', holdUntil: new Promise<void>((resolve) => (release = resolve)) }, { text: 'second answer' });
    say('first question');
    await model.waitForRequests(before + 1, wait);
    const waiting = say('what is 2 + 2?');
    edit(waiting, 'what is 3 + 3?');
    await gateway.output.waitFor(`message ${waiting.message_id} edited before its turn`, { stream: 'all', timeoutMs: wait });
    release();
    await find('first answer');
    await find('second answer');
    expect(model.requests).toHaveLength(before + 2);
    expect(lastUserText(model.requests.at(-1)!)).toBe('what is 3 + 3?');
    expect(JSON.stringify(model.requests.at(-1)!.body.messages)).not.toContain('2 + 2');
    expect(telegram.messages(admin).filter((message) => message.text === 'second answer')).toHaveLength(1);
  });

  it('changes nothing for an edit of a message already answered', async () => {
    const before = model.requests.length;
    model.enqueue({ text: 'answered once' });
    const answered = say('tell me a joke');
    await find('answered once');
    edit(answered, 'tell me two jokes');
    model.enqueue({ text: 'after the edit' });
    say('still there?');
    await find('after the edit');
    expect(model.requests).toHaveLength(before + 2);
    expect(JSON.stringify(model.requests.at(-1)!.body.messages)).not.toContain('two jokes');
  });

  it('asks Telegram for edits', () => {
    const polls = telegram.callsOf('getUpdates');
    expect(polls.length).toBeGreaterThan(0);
    expect(polls.every((call) => JSON.stringify(call.params.allowed_updates) === JSON.stringify(['message', 'callback_query', 'my_chat_member', 'edited_message']))).toBe(true);
  });
});

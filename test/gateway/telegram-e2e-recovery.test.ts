/**
 * Telegram end to end, recovery: the real gateway process killed in the middle of turns and
 * started again on the same OPERATOR_HOME, a store that cannot take a message, and a conversation
 * that cannot be set up. Every message Telegram handed over is answered exactly once.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { createInbox } from '../../src/gateway/inbox.ts';
import { createDeliveryLedger } from '../../src/gateway/ledger/index.ts';
import { createStore } from '../../src/store/index.ts';
import type { InboundMessage } from '../../src/channels/types.ts';
import { startGateway } from '../helpers/gateway-process.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const person = 2001;
const wait = 20_000;

describe('Telegram recovery through the gateway', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;
  let home: string;
  /** Direct messages open to anyone: these tests are about delivery, not access. */
  const start = () => startGateway({ home: fakes.home, env: { ...fakes.env([]), OPERATOR_DM_POLICY: 'open' } }, wait);

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-telegram-e2e-recovery-');
    ({ model, telegram, home } = fakes);
    gateway = await start();
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const texts = (chatId: number) => telegram.messages(chatId).map((message) => message.text);
  const say = (chatId: number, text: string) => {
    const update = telegram.textMessage({ chatId, text, from: { id: chatId, first_name: 'Ada' } });
    telegram.pushUpdate(update);
    return update;
  };
  const find = (chatId: number, text: string) =>
    telegram.waitFor((fake) => fake.messages(chatId).find((message) => message.text === text), wait).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${gateway.output.all()}`);
    });
  const userTexts = (request: FakeModelServer['requests'][number]) =>
    (request.body.messages as { role: string; content: string | { type: string; text?: string }[] }[])
      .filter((message) => message.role === 'user')
      .flatMap((message) => (typeof message.content === 'string' ? [message.content] : message.content.flatMap((part) => (part.text ? [part.text] : []))));

  it('answers, once, a message whose turn was cut off by a crash, and one queued behind it', async () => {
    const chat = person;
    // The model never answers the first call: the gateway dies while waiting for it.
    model.enqueue({ text: 'never sent', hangMs: 60_000 });
    const requestsBefore = model.requests.length;
    say(chat, 'what is the plan?');
    await vi.waitFor(() => expect(model.requests.length).toBeGreaterThan(requestsBefore), { timeout: wait });
    const secondUpdate = say(chat, 'and the budget?');
    // The second message was taken (its update confirmed) before the crash.
    await telegram.waitFor((fake) => fake.callsOf('getUpdates').some((call) => Number(call.params.offset) > secondUpdate.update_id), wait);
    await gateway.kill();
    expect(texts(chat)).toEqual([]);

    model.enqueue({ text: 'The plan: ship on Friday.' });
    model.enqueue({ text: 'The budget is fine.' });
    gateway = await start();
    await find(chat, 'The plan: ship on Friday.');
    await find(chat, 'The budget is fine.');
    expect(texts(chat)).toEqual(['The plan: ship on Friday.', 'The budget is fine.']);
    const [, replayFirst, replaySecond] = model.requests.slice(requestsBefore);
    // The first message's turn had begun: it is run again from the person's message, given once.
    expect(userTexts(replayFirst!).filter((text) => text === 'what is the plan?')).toHaveLength(1);
    expect(userTexts(replayFirst!).at(-1)).toBe('what is the plan?');
    expect(userTexts(replayFirst!).join('\n')).not.toContain('restarted');
    expect(userTexts(replaySecond!).at(-1)).toBe('and the budget?');
    expect(model.requests).toHaveLength(requestsBefore + 3);
    expect(gateway.output.all()).toContain('answering a message accepted earlier and not yet answered');
  });

  it('sends a reply recorded just before a crash and does not answer its message again', async () => {
    // The state a crash leaves between recording a reply and clearing its message from the inbox.
    const chat = person + 3;
    await gateway.stop();
    const store = createStore({ driver: 'fs', base: join(home, 'state') });
    const message = { ...replayable(chat), dedupeKey: `telegram:update:9${chat}`, text: 'did you get this?' };
    const key = await createInbox(store).add(message, message.text);
    await createDeliveryLedger(store).record({ sessionKey: message.sessionKey, address: message.address, text: 'Yes, got it.', turnId: `${key}#0`, answers: [key] });
    await store.close();
    const requestsBefore = model.requests.length;

    gateway = await start();
    await find(chat, 'Yes, got it.');
    model.enqueue({ text: 'Still here.' });
    say(chat, 'still there?');
    await find(chat, 'Still here.');
    expect(texts(chat)).toEqual(['Yes, got it.', 'Still here.']);
    expect(model.requests).toHaveLength(requestsBefore + 1);
    expect(gateway.output.all()).not.toContain('answering a message accepted earlier');
  });

  it('sends the reply anew when the preview it should have replaced can no longer be edited', async () => {
    const chat = person + 1;
    const answer = 'A streamed answer whose preview was deleted meanwhile.';
    // An edited preview, as a Bot API server without drafts gives DMs (the process that streams it
    // is killed, so its memory of the refusal goes with it; its successor finishes the preview by edits).
    telegram.draftSupport = 'unknown-method';
    model.enqueue({ text: answer, delayMs: 30 });
    telegram.holdNext('editMessageText', (params) => !String(params.text).endsWith('…'));
    say(chat, 'stream it');
    await telegram.waitFor((fake) => fake.calls.find((call) => call.held && call.method === 'editMessageText'), wait);
    await gateway.kill();
    const preview = telegram.messages(chat);
    expect(preview).toHaveLength(1);

    telegram.draftSupport = 'yes';
    telegram.failNext('editMessageText', { status: 400, description: 'Bad Request: message to edit not found' });
    gateway = await start();
    await find(chat, answer);
    const sent = telegram.messages(chat);
    expect(sent.map((message) => message.text)).toEqual([preview[0]!.text, answer]);
    expect(sent.filter((message) => message.text === answer)).toHaveLength(1);
  });

  it('leaves a message it cannot store with Telegram, and answers it once the store works again', async () => {
    const chat = person + 2;
    const inbox = join(home, 'state', 'journal', 'inbox');
    rmSync(inbox, { recursive: true, force: true });
    mkdirSync(join(home, 'state', 'journal'), { recursive: true });
    // A file where the inbox's logs should be: every append to them fails.
    writeFileSync(inbox, 'in the way');
    const requestsBefore = model.requests.length;
    say(chat, 'are you there?');
    await telegram.waitFor(() => (gateway.output.all().includes('left for the next poll') ? true : undefined), wait);
    expect(model.requests).toHaveLength(requestsBefore);

    rmSync(inbox, { force: true });
    model.enqueue({ text: 'Yes, here now.' });
    await find(chat, 'Yes, here now.');
    expect(texts(chat)).toEqual(['Yes, here now.']);
    expect(model.requests).toHaveLength(requestsBefore + 1);
  });

  it('tells the person once an hour when their conversation cannot be set up (a profile that does not exist), and keeps working', async () => {
    const chat = person + 3;
    await gateway.stop();
    writeFileSync(join(home, 'operator.json'), JSON.stringify({ profiles: { people: { [`telegram:${chat}`]: 'no-such-profile' } } }));
    try {
      gateway = await start();
      const requestsBefore = model.requests.length;
      say(chat, 'hello?');
      // Why, and who can fix it: trying again cannot help until an admin does.
      await find(chat, "Sorry, I cannot answer here: this conversation's settings (its profile) could not be loaded. Please let the bot's admin know.");
      expect(gateway.output.all()).toContain('message not handled');
      // Written again within the hour: refused in the log, not told twice (the limiter of docs/security.md).
      say(chat, 'hello??');
      await gateway.output.waitFor(/"message\.refused"[^\n]*"profile not loaded"[^\n]*"told":false/, { stream: 'all', timeoutMs: wait, label: 'the second refusal in the log' });
      expect(texts(chat).filter((text) => text.includes('could not be loaded'))).toHaveLength(1);
      expect(model.requests).toHaveLength(requestsBefore);
      // Someone else is answered as usual.
      model.enqueue({ text: 'Fine here.' });
      say(person + 4, 'and me?');
      await find(person + 4, 'Fine here.');
    } finally {
      await gateway.stop();
      rmSync(join(home, 'operator.json'), { force: true });
      gateway = await start();
    }
  });
});

/** A direct Telegram text message as the gateway takes it in (what its inbox and ledger keep). */
function replayable(chat: number): InboundMessage {
  return {
    id: '1',
    dedupeKey: `telegram:update:9${chat}`,
    sessionKey: `telegram:dm:${chat}`,
    address: { platform: 'telegram', conversationId: String(chat) },
    scope: 'dm',
    sender: { id: String(chat), name: 'Ada' },
    text: '',
    attachments: [],
    mentioned: true,
    receivedAt: Date.now(),
    raw: undefined,
  };
}

/**
 * Telegram drafts end to end: the real gateway process, grammY against the fake Bot API. A reply
 * in a private chat streams through `sendMessageDraft` (the "Thinking…" placeholder while a tool
 * runs) and ends with exactly one `sendMessage`, never edited; a gateway killed mid-draft answers
 * once after its restart; a server that refuses drafts gets the edited preview, and the bot keeps
 * to it, also after a restart (the refusal is kept in the store for the bot and its server).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { findFinalBotMessage, startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const wait = 20_000;
/** One person per test, each an admin in their own DM: the tests share a gateway, never a chat. */
const people = { drafts: 5101, refused: 5102, remembered: 5103, killed: 5104, restarted: 5105 };

describe('Telegram drafts through the gateway', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-telegram-drafts-');
    ({ model, telegram } = fakes);
    gateway = await startTelegramGateway(fakes, Object.values(people));
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const say = (person: number, text: string) => telegram.pushUpdate(telegram.textMessage({ chatId: person, text, from: { id: person, first_name: 'Ada' } }));
  /** The Bot API calls that went to one chat. */
  const callsIn = (person: number, method: string) => telegram.callsOf(method).filter((call) => Number(call.params.chat_id) === person);
  const answer = (name: string) => `Here is the answer for ${name}, ${'streamed in small pieces, '.repeat(8)}done.`;

  it('streams a DM reply through drafts, the placeholder while a tool runs, and ends with exactly one message (sent as the draft ends, finished by one edit)', async () => {
    const person = people.drafts;
    const text = answer('drafts');
    model.enqueue(
      { toolCalls: [{ name: 'memory', arguments: { action: 'add', target: 'memory', content: 'Ada likes drafts.' } }] },
      { text, chunkSize: 6, delayMs: 30 },
    );
    say(person, 'tell me');
    await findFinalBotMessage(telegram, gateway, person, text, wait);
    const drafts = telegram.drafts(person);
    // The placeholder came before any text; the answer grew in one draft.
    expect(drafts[0]!.text).toBe('');
    expect(drafts.filter((draft) => draft.text !== '').length).toBeGreaterThan(1);
    expect(new Set(drafts.map((draft) => draft.draftId)).size).toBe(1);
    // The message is the draft's end as a noted preview, and the final text its one edit: a process
    // killed in between repeats the edit after its restart, never the message.
    expect(telegram.messages(person).map((message) => [message.text, message.edits])).toEqual([[text, 1]]);
    expect(callsIn(person, 'sendMessage')).toHaveLength(1);
    expect(callsIn(person, 'editMessageText')).toHaveLength(1);
  });

  it('answers once after the gateway is killed mid-draft (the ledger holds the final message)', async () => {
    const person = people.killed;
    model.enqueue({ text: `Never finished, ${'still streaming, '.repeat(60)}`, firstChunkSize: 30, chunkSize: 4, delayMs: 200 });
    say(person, 'tell me');
    await telegram.waitFor((fake) => fake.drafts(person).find((draft) => draft.text.startsWith('Never finished')), wait);
    await gateway.kill();
    expect(telegram.messages(person)).toHaveLength(0);

    // Shorter than a preview's least (24 characters): no draft can be shown before it ends, so
    // however its chunks arrive, it is one new message, never edited.
    model.enqueue({ text: 'Done, after restart.' });
    gateway = await startTelegramGateway(fakes, Object.values(people));
    await findFinalBotMessage(telegram, gateway, person, 'Done, after restart.', wait);
    // Another turn afterwards: had anything been sent twice, it would be here by now.
    model.enqueue({ text: 'And the next one.' });
    say(person, 'next');
    await findFinalBotMessage(telegram, gateway, person, 'And the next one.', wait);
    expect(telegram.messages(person).map((message) => [message.text, message.edits])).toEqual([
      ['Done, after restart.', 0],
      ['And the next one.', 0],
    ]);
  });

  it('falls back to the edited preview when the fake refuses drafts, and keeps to it for the bot', async () => {
    telegram.draftSupport = 'unknown-method';
    const text = answer('refused');
    model.enqueue({ text, chunkSize: 6, delayMs: 40 });
    say(people.refused, 'tell me');
    const reply = await findFinalBotMessage(telegram, gateway, people.refused, text, wait);
    expect(reply.edits).toBeGreaterThan(0);
    expect(telegram.messages(people.refused)).toHaveLength(1);
    expect(callsIn(people.refused, 'sendMessageDraft')).toHaveLength(1);
    await gateway.output.waitFor(/drafts refused by the Bot API/, { stream: 'all', timeoutMs: wait, label: 'the refusal in the log' });

    // The server takes drafts again, but this process remembers the refusal: edits, no draft asked.
    telegram.draftSupport = 'yes';
    const next = answer('remembered');
    model.enqueue({ text: next, chunkSize: 6, delayMs: 40 });
    say(people.remembered, 'tell me');
    expect((await findFinalBotMessage(telegram, gateway, people.remembered, next, wait)).edits).toBeGreaterThan(0);
    expect(callsIn(people.remembered, 'sendMessageDraft')).toHaveLength(0);
  });

  it('goes straight to edited previews after a restart: the refusal was kept for the bot', async () => {
    // The server would take drafts now; the refusal met by the process before is in the store.
    expect(telegram.draftSupport).toBe('yes');
    await gateway.kill();
    gateway = await startTelegramGateway(fakes, Object.values(people));
    await gateway.output.waitFor(/drafts were refused by this Bot API server before/, { stream: 'all', timeoutMs: wait, label: 'the recalled refusal in the log' });
    const drafts = telegram.callsOf('sendMessageDraft').length;
    const text = answer('restarted');
    model.enqueue({ text, chunkSize: 6, delayMs: 40 });
    say(people.restarted, 'tell me');
    expect((await findFinalBotMessage(telegram, gateway, people.restarted, text, wait)).edits).toBeGreaterThan(0);
    expect(telegram.callsOf('sendMessageDraft')).toHaveLength(drafts);
    expect(callsIn(people.restarted, 'sendMessageDraft')).toHaveLength(0);
  });
});

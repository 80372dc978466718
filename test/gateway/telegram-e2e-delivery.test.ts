/**
 * Telegram end to end, delivery: the real gateway process against the fake Bot API server and
 * the fake model server. Telegram answering 429, refusing a reply's markup, a crash while a reply
 * is on its way (then a restart on the same OPERATOR_HOME), and webhooks with a wrong secret.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { freePort } from '../helpers/free-port.ts';
import { startGateway } from '../helpers/gateway-process.ts';
import type { GatewayProcess, GatewayProcessOptions } from '../helpers/gateway-process.ts';
import { startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = 1001;
/** Another admin, whose DM only the crash tests use. */
const crashChat = 1002;
const wait = 20_000;

/** The gateway as these tests run it: against `fakes`, both admins, once its banner is out. */
function startDeliveryGateway(fakes: TelegramGatewayFakes, options: Partial<GatewayProcessOptions> = {}): Promise<GatewayProcess> {
  return startGateway({ home: fakes.home, ...options, env: { ...fakes.env([admin, crashChat]), ...options.env } }, wait);
}

const parseError = { status: 400, description: 'Bad Request: can\'t parse entities: Unsupported start tag "b" at byte offset 2' };

describe('Telegram delivery through the gateway', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    // The edited preview is what these tests are about: a Bot API server without drafts, where DM
    // replies stream by it (as group replies always do; drafts: telegram-drafts-e2e.test.ts).
    fakes = await startTelegramGatewayFakes('operator-telegram-e2e-delivery-', { drafts: 'unknown-method' });
    ({ model, telegram } = fakes);
    gateway = await startDeliveryGateway(fakes);
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const find = (chatId: number, predicate: (text: string) => boolean) =>
    telegram.waitFor((fake) => fake.messages(chatId).find((message) => predicate(message.text)), wait).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${gateway.output.all()}`);
    });
  const say = (chatId: number, text: string) => telegram.pushUpdate(telegram.textMessage({ chatId, text, from: { id: chatId, first_name: 'Ada' } }));
  /** Sends one more message and waits for its answer: whatever was queued before is done by then. */
  const roundTrip = async (chatId: number, answer: string) => {
    model.enqueue({ text: answer });
    say(chatId, `please say ${answer}`);
    await find(chatId, (text) => text === answer);
  };

  it('honours Telegram\'s 429 retry_after and delivers the reply exactly once', async () => {
    const answer = 'Sent despite 429.';
    model.enqueue({ text: answer });
    // Three 429s: the adapter waits out two in place, gives up on the third, and the gateway's
    // own retry delivers it.
    telegram.failNext('sendMessage', { status: 429, retryAfter: 1, times: 3, when: (params) => String(params.text).includes(answer) });
    say(admin, 'are you rate limited?');
    await find(admin, (text) => text === answer);
    const attempts = telegram.callsOf('sendMessage').filter((call) => String(call.params.text).includes(answer));
    expect(attempts.map((call) => call.status)).toEqual([429, 429, 429, 200]);
    await roundTrip(admin, 'After the 429.');
    expect(telegram.messages(admin).filter((message) => message.text === answer)).toHaveLength(1);
  });

  it('sends a reply as plain text when Telegram refuses its entities', async () => {
    model.enqueue({ text: 'A **bold** claim.' });
    telegram.failNext('sendMessage', { ...parseError, when: (params) => String(params.text).includes('claim') });
    say(admin, 'claim something');
    const reply = await find(admin, (text) => text.includes('claim'));
    expect(reply).toMatchObject({ text: 'A bold claim.', entities: [], parseMode: undefined });
    const attempts = telegram.callsOf('sendMessage').filter((call) => String(call.params.text).includes('claim'));
    expect(attempts.map((call) => [call.status, call.params.parse_mode])).toEqual([[400, 'HTML'], [200, undefined]]);
  });

  it('edits a streamed preview into plain text when Telegram refuses the final text\'s entities', async () => {
    const answer = 'This **streamed** answer is long enough for a preview.';
    model.enqueue({ text: answer, delayMs: 30 });
    telegram.failNext('editMessageText', { ...parseError, when: (params) => !String(params.text).endsWith('…') });
    say(admin, 'stream something');
    const reply = await find(admin, (text) => text === 'This streamed answer is long enough for a preview.');
    expect(reply).toMatchObject({ entities: [], parseMode: undefined });
    expect(reply.edits).toBeGreaterThan(0);
    expect(telegram.messages(admin).filter((message) => message.text.startsWith('This streamed'))).toHaveLength(1);
  });

  it('delivers a reply that was being sent when the gateway crashed, once, after the restart', async () => {
    const answer = 'Short reply.';
    model.enqueue({ text: answer });
    telegram.holdNext('sendMessage', (params) => String(params.text).includes(answer));
    const requestsBefore = model.requests.length;
    say(crashChat, 'a quick one');
    await telegram.waitFor((fake) => fake.calls.find((call) => call.held), wait);
    await gateway.kill();
    expect(telegram.messages(crashChat)).toHaveLength(0);

    gateway = await startDeliveryGateway(fakes);
    await find(crashChat, (text) => text === answer);
    await roundTrip(crashChat, 'Back after the crash.');
    expect(telegram.messages(crashChat).map((message) => message.text)).toEqual([answer, 'Back after the crash.']);
    // The answer was delivered from the ledger, not asked for again.
    expect(model.requests).toHaveLength(requestsBefore + 2);
  });

  it('after a crash between the parts of a long reply, sends only the parts that had not arrived', async () => {
    // Three parts of about 3,000 characters each, one per message (Telegram takes 4,096 per message).
    const paragraphs = ['first', 'second', 'third'].map((word) => `The ${word} part: ${`${word} `.repeat(450)}`.trim());
    model.enqueue({ text: paragraphs.join('\n\n'), chunkSize: 4_000 });
    // The third part never gets through: the gateway dies while sending it.
    telegram.holdNext('sendMessage', (params) => String(params.text).startsWith('The third part'));
    const before = telegram.messages(crashChat).length;
    const callsBefore = telegram.calls.length;
    say(crashChat, 'a long one');
    await telegram.waitFor((fake) => fake.calls.slice(callsBefore).find((call) => call.held && call.method === 'sendMessage'), wait);
    await gateway.kill();
    expect(telegram.messages(crashChat).slice(before).map((message) => message.text.slice(0, 15))).toEqual(['The first part:', 'The second part']);

    gateway = await startDeliveryGateway(fakes);
    await find(crashChat, (text) => text.startsWith('The third part'));
    await roundTrip(crashChat, 'Long and back.');
    const since = telegram.messages(crashChat).slice(before).map((message) => message.text.slice(0, 15));
    expect(since).toEqual(['The first part:', 'The second part', 'The third part:', 'Long and back.']);
  });

  it('after a crash during a streamed reply, turns the preview into the reply instead of leaving it beside a copy', async () => {
    const answer = 'The streamed answer survives a crash of the gateway.';
    model.enqueue({ text: answer, delayMs: 30 });
    telegram.holdNext('editMessageText', (params) => !String(params.text).endsWith('…'));
    const before = telegram.messages(crashChat).length;
    const requestsBefore = model.requests.length;
    say(crashChat, 'a streamed one');
    await telegram.waitFor((fake) => fake.calls.find((call) => call.held && call.method === 'editMessageText'), wait);
    await gateway.kill();
    const preview = telegram.messages(crashChat).slice(before);
    expect(preview).toHaveLength(1);
    expect(preview[0]!.text.endsWith('…')).toBe(true);

    gateway = await startDeliveryGateway(fakes);
    await find(crashChat, (text) => text === answer);
    await roundTrip(crashChat, 'Streamed and back.');
    const since = telegram.messages(crashChat).slice(before);
    expect(since.map((message) => message.text)).toEqual([answer, 'Streamed and back.']);
    expect(since[0]!.messageId).toBe(preview[0]!.messageId);
    expect(model.requests).toHaveLength(requestsBefore + 2);
  });
});

describe('Telegram webhook through the gateway', () => {
  const secret = 'the_right_secret-42';
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-telegram-e2e-webhook-');
    ({ model, telegram } = fakes);
    // The webhook URL names the port, so it is chosen before the gateway starts.
    const port = await freePort();
    gateway = await startDeliveryGateway(fakes, {
      port,
      env: { TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/webhooks/telegram`, TELEGRAM_WEBHOOK_SECRET: secret },
    });
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it('refuses updates with a wrong or missing secret (401, nothing answered) and answers the right one', async () => {
    expect(telegram.webhook).toMatchObject({ secretToken: secret });
    expect(telegram.callsOf('getUpdates')).toHaveLength(0);
    const from = { id: admin, first_name: 'Ada' };
    const intruder = telegram.textMessage({ chatId: admin, text: 'intruder question', from });
    expect(await telegram.postWebhook(intruder, { secret: 'a_wrong_secret' })).toBe(401);
    expect(await telegram.postWebhook(telegram.textMessage({ chatId: admin, text: 'unsigned question', from }), { secret: null })).toBe(401);

    model.enqueue({ text: 'Answer to the real one.' });
    expect(await telegram.postWebhook(telegram.textMessage({ chatId: admin, text: 'real question', from }))).toBe(200);
    await telegram.waitFor((fake) => fake.messages(admin).find((message) => message.text === 'Answer to the real one.'), wait);
    expect(model.requests).toHaveLength(1);
    expect(JSON.stringify(model.requests[0]!.body.messages)).toContain('real question');
    expect(JSON.stringify(model.requests[0]!.body.messages)).not.toMatch(/intruder|unsigned/);

    // Refused, not swallowed: the same update with the right secret is answered.
    model.enqueue({ text: 'Now you may ask.' });
    expect(await telegram.postWebhook(intruder)).toBe(200);
    await telegram.waitFor((fake) => fake.messages(admin).find((message) => message.text === 'Now you may ask.'), wait);
    expect(telegram.messages(admin).map((message) => message.text)).toEqual(['Answer to the real one.', 'Now you may ask.']);
    expect(model.requests).toHaveLength(2);
  });
});

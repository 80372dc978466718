/**
 * A person always hears something, through the real gateway process, the real Anthropic SDK and
 * grammy: when a model call shows nothing for `notifyAfterSeconds`, the preview (in a private chat
 * on a server with drafts: the draft) says the provider is slow and operator keeps trying; the
 * answer replaces it when it comes, a turn that gives up says why in its place, a restart does not
 * send it twice, and the model never sees it.
 *
 * Tests with the same operator.json share a gateway, each in a conversation of its own.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { createStoreFromEnv } from '../../src/store/from-env.ts';
import { GatewayPerConfig } from '../helpers/gateway-per-config.ts';
import { findBotMessage, findFinalBotMessage, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const wait = 60_000;
const notice = 'slow to answer; still trying';

/** A promise the test settles when the held model call may answer. */
function gate(): { promise: Promise<void>; open: () => void } {
  let open = () => {};
  const promise = new Promise<void>((resolve) => (open = resolve));
  return { promise, open };
}

describe('a person always hears something while the provider is slow', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateways: GatewayPerConfig;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-slow-notice-');
    ({ model, telegram } = fakes);
    gateways = new GatewayPerConfig({ home: fakes.home, env: () => ({ ...fakes.env([]), OPERATOR_DM_POLICY: 'open' }), timeoutMs: wait });
  });

  // Each test scripts the model afresh and reads only its own requests.
  beforeEach(() => model.reset());

  afterAll(async () => {
    await gateways?.stop();
    await fakes?.close();
  });

  /** A gateway with `config`: reused by the next test with the same one (see `GatewayPerConfig`). */
  const start = (config: Record<string, unknown>) => gateways.start(config);
  /** The settings of the first and last tests, which share a gateway: a quick notice, and a stop that leaves turns to the next start. */
  const quickNotice = { modelTimeouts: { notifyAfterSeconds: 0.3 }, shutdownGraceSeconds: 0 };
  const say = (chat: number, text: string) => telegram.pushUpdate(telegram.textMessage({ chatId: chat, text, from: { id: chat, first_name: 'Hal' } }));
  /** Every text the bot sent or edited in `chat`, in order. */
  const textsSent = (chat: number) =>
    telegram.calls
      .filter((call) => (call.method === 'sendMessage' || call.method === 'editMessageText') && Number(call.params.chat_id) === chat)
      .map((call) => String(call.params.text));
  /** Waits for a draft in `chat` containing `text`. */
  const draftWith = (chat: number, text: string) => telegram.waitFor((fake) => fake.drafts(chat).find((draft) => draft.text.includes(text)), wait);

  it('shows the notice in the draft after notifyAfterSeconds, replaces it with the answer, and keeps it from the model', async () => {
    const held = gate();
    // A fraction of a second: the notice comes as soon as the call has been silent that long.
    const running = await start(quickNotice);
    model.setDefault({ text: 'The answer, late but whole.', holdUntil: held.promise });
    say(7001, 'are you there?');
    await draftWith(7001, notice);
    held.open();
    await findFinalBotMessage(telegram, running, 7001, 'The answer, late but whole.', wait);
    // The notice was only ever the draft: the answer is the one message (sent as the draft ended,
    // finished by one edit), and no message ever showed the notice.
    expect(telegram.messages(7001).map((message) => [message.text, message.edits])).toEqual([['The answer, late but whole.', 1]]);
    expect(textsSent(7001).some((text) => text.includes(notice))).toBe(false);

    // The next turn's request holds the conversation so far, and never the notice.
    model.setDefault({ text: 'Second answer.' });
    say(7001, 'and now?');
    await findBotMessage(telegram, running, 7001, 'Second answer.', wait);
    const last = model.requests.at(-1)!;
    expect(last.rawBody).toContain('The answer, late but whole.');
    expect(last.rawBody).not.toContain('slow to answer');
  });

  it('does not send the notice twice across a restart: the turn run again finishes the same preview', async () => {
    // An edited preview (a Bot API server without drafts) is what a restart has to finish; the
    // process that hears the refusal is stopped, and the server takes drafts again after the test.
    telegram.draftSupport = 'unknown-method';
    const held = gate();
    const first = await start(quickNotice);
    model.setDefault({ text: 'never sent', holdUntil: held.promise });
    say(7004, 'still there?');
    const shown = await findBotMessage(telegram, first, 7004, notice, wait);
    // Stopped while the call hangs: the turn is left to the next start, its preview noted.
    await gateways.stop();
    const heldAgain = gate();
    model.setDefault({ text: 'Answered after the restart.', holdUntil: heldAgain.promise });
    const second = await start(quickNotice);
    // The turn run again is slow too: its notice goes in the same preview, not a new message.
    await second.output.waitFor(/is slow to answer; the person was told/, { stream: 'all', timeoutMs: wait, label: 'the notice after the restart' });
    heldAgain.open();
    const answered = await findBotMessage(telegram, second, 7004, 'Answered after the restart.', wait);
    held.open();
    expect(answered.messageId).toBe(shown.messageId);
    expect(telegram.messages(7004)).toHaveLength(1);
    expect(telegram.callsOf('sendMessage').filter((call) => Number(call.params.chat_id) === 7004)).toHaveLength(1);
    // The server takes drafts again. The gateway keeps a server's refusal for the bot (a week, see
    // `drafts.ts`), so the later tests' gateways would stream by edits: it is deleted from the
    // store while no gateway runs.
    telegram.draftSupport = 'yes';
    await gateways.stop();
    const store = createStoreFromEnv({ OPERATOR_HOME: fakes.home });
    try {
      const kept = await store.list('channel-memory:telegram:');
      expect(kept.some((key) => key.includes('drafts-refused'))).toBe(true);
      for (const key of kept) await store.delete(key);
    } finally {
      await store.close();
    }
  });

  it('says nothing of a slow provider when the answer comes in time', async () => {
    const running = await start({ modelTimeouts: { notifyAfterSeconds: 300 } });
    model.setDefault({ text: 'A quick answer.' });
    say(7002, 'quick?');
    await findBotMessage(telegram, running, 7002, 'A quick answer.', wait);
    expect(textsSent(7002).some((text) => text.includes(notice))).toBe(false);
  });

  it('tells the person why when the turn gives up, in the notice’s place', async () => {
    // The notice after 0.3 s; each call given up after 0.3 s and tried again 2 s later, until the
    // next try could not start before the turn's deadline (4 s).
    const running = await start({ modelTimeouts: { notifyAfterSeconds: 0.3, firstByteSeconds: 0.3 }, turnTimeoutSeconds: 4 });
    model.setDefault({ text: 'never sent', hangMs: 120_000 });
    say(7003, 'hello?');
    await draftWith(7003, notice);
    const told = await findBotMessage(telegram, running, 7003, 'Stopped: this took longer than 4 seconds', wait);
    expect(told.text).toContain('the model provider did not answer');
    // The draft with the notice gives way to the one message that says why (sent as the draft
    // ended, finished by one edit).
    expect(telegram.messages(7003).map((message) => message.edits)).toEqual([1]);
  });
});

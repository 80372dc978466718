/**
 * Hung model providers through the real gateway process, with two providers on two fake model
 * servers: Anthropic (the configured model) and an OpenAI-compatible server (a conversation's own
 * model, chosen with `/model`).
 *
 * - A call that sends nothing, or stalls midway, fails after the provider's own limit
 *   (`modelTimeouts.anthropic` in operator.json) and is tried again; at the turn's deadline the
 *   person is told, instead of waiting in silence.
 * - Turns hanging on one provider hold none of `maxConcurrentTurns` while they wait: a
 *   conversation on the other provider is still answered while they hang.
 *
 * Tests with the same operator.json share a gateway, each in a conversation of its own.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeModelServer, type FakeModelServer } from '../fakes/fake-model-server.ts';
import type { ReplySpec } from '../fakes/fake-model-types.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { GatewayPerConfig } from '../helpers/gateway-per-config.ts';
import { findBotMessage, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

/** A safety net only: every wait below ends as soon as what it waits for happens. */
const wait = 30_000;
/** Far longer than any test: a provider that never gets round to answering. */
const forever = 120_000;

describe('model providers that hang, through the gateway', () => {
  let fakes: TelegramGatewayFakes;
  let anthropic: FakeModelServer;
  let openai: FakeModelServer;
  let telegram: FakeTelegram;
  let gateways: GatewayPerConfig;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-provider-fairness-');
    ({ model: anthropic, telegram } = fakes);
    openai = await startFakeModelServer();
    gateways = new GatewayPerConfig({ home: fakes.home, env: () => ({ ...fakes.env([]), OPERATOR_DM_POLICY: 'open', OPENAI_BASE_URL: openai.openaiBaseURL, OPENAI_API_KEY: 'sk-openai-test' }), timeoutMs: wait });
  });

  // Each test scripts the models afresh and counts only its own requests.
  beforeEach(() => {
    anthropic.reset();
    openai.reset();
  });

  afterAll(async () => {
    await gateways?.stop();
    await openai?.close();
    await fakes?.close();
  });

  /** A gateway with `config`: reused by the next test with the same one (see `GatewayPerConfig`). */
  const start = (config: Record<string, unknown>) => gateways.start(config);
  const say = (chat: number, text: string) => telegram.pushUpdate(telegram.textMessage({ chatId: chat, text, from: { id: chat, first_name: 'Ada' } }));
  const anthropicCalls = () => anthropic.requests.filter((request) => request.protocol === 'anthropic').length;

  for (const [what, hang, chat] of [
    ['never sends its response headers', { hangMs: forever }, 7001],
    ['falls silent in the middle of its answer', { chunkSize: 6, stallAfterEvents: { events: 5, ms: forever } }, 7002],
  ] as const) {
    it(`answers the person with an error by the turn's deadline when the provider ${what}`, async () => {
      // Short limits, so the test waits seconds, not minutes: a call gives up after 0.3 s and is
      // tried again 2 s later (the Agent's first retry delay), well within the deadline.
      const running = await start({ modelTimeouts: { anthropic: { firstByteSeconds: 0.3, idleSeconds: 0.3 } }, turnTimeoutSeconds: 4 });
      const reply: ReplySpec = { text: 'This answer never arrives whole.', ...hang };
      anthropic.setDefault(reply);
      say(chat, 'are you there?');
      const told = await findBotMessage(telegram, running, chat, 'took longer than 4 seconds', wait);
      expect(told.text).not.toContain('never arrives whole');
      // Each call was given up after the provider's own limit and tried again.
      expect(anthropicCalls()).toBeGreaterThanOrEqual(2);
      // The conversation works again once the provider does.
      anthropic.setDefault({ text: 'Back to normal.' });
      say(chat, 'and now?');
      await findBotMessage(telegram, running, chat, 'Back to normal.', wait);
    });
  }

  it('answers a conversation on another provider while twice as many turns as there are slots hang on one', async () => {
    // No call gives up during the test: the hung turns wait on their calls throughout.
    // The hung turns still wait when the test ends: without a grace they stop at once instead of
    // holding the gateway's exit for the default 25 s.
    const running = await start({ maxConcurrentTurns: 4, modelTimeouts: { firstByteSeconds: 600 }, shutdownGraceSeconds: 0 });
    anthropic.setDefault({ text: 'never sent', hangMs: forever });
    openai.setDefault({ text: 'Answer from the other provider.' });
    say(7100, '/model openai:gpt-4o-mini');
    await findBotMessage(telegram, running, 7100, 'Model is now', wait);

    const hung = [7101, 7102, 7103, 7104, 7105, 7106, 7107, 7108];
    for (const chat of hung) say(chat, 'hello?');
    // Anthropic's turns hold no slot while their calls hang: all eight reach the provider.
    await telegram.waitFor(() => (anthropicCalls() >= hung.length ? true : undefined), wait);

    say(7100, 'and me?');
    await findBotMessage(telegram, running, 7100, 'Answer from the other provider.', wait);
    expect(openai.requests.map((request) => request.protocol)).toEqual(['openai']);
    // Nothing was answered in the hung conversations.
    for (const chat of hung) expect(telegram.messages(chat)).toEqual([]);
    expect(anthropicCalls()).toBe(hung.length);
  });
});

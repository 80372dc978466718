/**
 * A model provider that hangs, through the real gateway process: a call that sends nothing (no
 * headers, or headers and then nothing) fails after the first-byte timeout and is tried again;
 * the turn stops at its deadline and the person is told, within it. Turns hanging on one provider
 * hold no slot while they wait, so a conversation on another provider is still answered.
 *
 * Tests with the same operator.json share a gateway, each in a conversation of its own.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { GatewayPerConfig } from '../helpers/gateway-per-config.ts';
import { findBotMessage, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const wait = 30_000;

describe('a model provider that hangs', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateways: GatewayPerConfig;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-provider-hang-');
    ({ model, telegram } = fakes);
    gateways = new GatewayPerConfig({ home: fakes.home, env: () => ({ ...fakes.env([]), OPERATOR_DM_POLICY: 'open', OPENAI_BASE_URL: model.openaiBaseURL, OPENAI_API_KEY: 'sk-openai-test' }), timeoutMs: wait });
  });

  // Each test scripts the model afresh and counts only its own requests.
  beforeEach(() => model.reset());

  afterAll(async () => {
    await gateways?.stop();
    await fakes?.close();
  });

  /** A gateway with `config`: reused by the next test with the same one (see `GatewayPerConfig`). */
  const start = (config: Record<string, unknown>) => gateways.start(config);
  const say = (chat: number, text: string) => telegram.pushUpdate(telegram.textMessage({ chatId: chat, text, from: { id: chat, first_name: 'Hal' } }));

  for (const [name, hang, chat] of [
    ['sends no headers', { hangMs: 120_000 }, 6001],
    ['sends its headers and then nothing', { stallAfterHeadersMs: 120_000 }, 6002],
  ] as const) {
    it(`tries again after the first-byte timeout, and tells the person at the turn's deadline when it ${name}`, async () => {
      // Short limits, so the test waits seconds, not minutes: the first call gives up after 0.3 s
      // and is tried again 2 s later (the Agent's first retry delay), well within the deadline.
      const running = await start({ modelTimeouts: { firstByteSeconds: 0.3 }, turnTimeoutSeconds: 4 });
      model.setDefault({ text: 'never sent', ...hang });
      const question = `are you there? (${chat})`;
      say(chat, question);
      const told = await findBotMessage(telegram, running, chat, 'Stopped: this took longer than 4 seconds', wait);
      expect(told.text).not.toContain('never sent');
      // The first call timed out and was tried again, within the deadline.
      expect(model.requests.filter((request) => request.rawBody.includes(question)).length).toBeGreaterThanOrEqual(2);
      expect(running.output.all()).toContain(`telegram:dm:${chat}: turn stopped at its deadline`);
    });
  }

  it('answers a conversation on another provider while turns hang on one (maxConcurrentTurns 4)', async () => {
    // The hung turns are still waiting when the test ends: without a grace they stop at once
    // instead of holding the gateway's exit for the default 25 s.
    const running = await start({ maxConcurrentTurns: 4, shutdownGraceSeconds: 0 });
    // Anthropic hangs for everyone; the OpenAI-compatible provider answers.
    model.setDefault((request) => (request.protocol === 'openai' ? { text: 'Answer from the other provider.' } : { text: 'never sent', hangMs: 120_000 }));
    say(6100, '/model openai:gpt-4o-mini');
    await findBotMessage(telegram, running, 6100, 'Model is now', wait);
    const hung = [6101, 6102, 6103, 6104, 6105, 6106];
    for (const chat of hung) say(chat, 'hello?');
    await telegram.waitFor(() => (model.requests.filter((request) => request.protocol === 'anthropic').length >= 3 ? true : undefined), wait);
    say(6100, 'and me?');
    await findBotMessage(telegram, running, 6100, 'Answer from the other provider.', wait);
    // The hung conversations are still waiting: nothing was answered there.
    for (const chat of hung) expect(telegram.messages(chat)).toEqual([]);
  });
});

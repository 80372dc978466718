/**
 * A hung provider holds no one else back, through the real gateway process, the real Anthropic
 * SDK and grammy: turns waiting on a model call hold no running slot, so while 64 turns (every
 * slot of the default `maxConcurrentTurns`) hang on one provider, an unrelated conversation on
 * the same provider is answered; past `maxTurnsWaitingOnModel` the person is told at once.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { RecordedRequest } from '../fakes/fake-model-types.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { findBotMessage, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const wait = 90_000;

describe('a provider that hangs holds no one else back', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: StartedGateway | undefined;
  let release = () => {};

  beforeEach(async () => {
    fakes = await startTelegramGatewayFakes('operator-hung-slots-');
    ({ model, telegram } = fakes);
    const held = new Promise<void>((resolve) => (release = resolve));
    // Calls asking to hang wait until the test ends; the others are answered at once.
    model.setDefault((request) => (request.rawBody.includes('please hang') ? { text: 'never sent', holdUntil: held } : { text: 'Answered while the others wait.' }));
  });

  afterEach(async () => {
    release();
    await gateway?.stop();
    gateway = undefined;
    await fakes?.close();
  });

  const start = async (config: Record<string, unknown>) => {
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify(config));
    gateway = await startGateway({ home: fakes.home, env: { ...fakes.env([]), OPERATOR_DM_POLICY: 'open' } }, wait);
    return gateway;
  };
  const say = (chat: number, text: string) => telegram.pushUpdate(telegram.textMessage({ chatId: chat, text, from: { id: chat, first_name: 'Hal' } }));
  const hanging = (requests: readonly RecordedRequest[]) => requests.filter((request) => request.rawBody.includes('please hang')).length;

  it('answers an unrelated conversation on the same provider while 64 turns hang on it (every slot of maxConcurrentTurns 64)', async () => {
    const running = await start({ maxConcurrentTurns: 64, modelTimeouts: { firstByteSeconds: 3_600, notifyAfterSeconds: 3_600 } });
    const hung = Array.from({ length: 64 }, (_, index) => 8000 + index);
    for (const chat of hung) say(chat, 'please hang');
    // All 64 calls wait on the provider at once: none holds a slot another needs.
    await vi.waitFor(() => expect(hanging(model.requests)).toBeGreaterThanOrEqual(64), { timeout: wait, interval: 100 });
    say(8100, 'anyone home?');
    await findBotMessage(telegram, running, 8100, 'Answered while the others wait.', wait);
    for (const chat of hung) expect(telegram.messages(chat)).toEqual([]);
  });

  it('tells the person at once when as many turns as allowed already wait on the provider', async () => {
    const running = await start({ maxTurnsWaitingOnModel: 2, modelTimeouts: { firstByteSeconds: 3_600, notifyAfterSeconds: 3_600 } });
    say(8201, 'please hang');
    say(8202, 'please hang');
    await vi.waitFor(() => expect(hanging(model.requests)).toBe(2), { timeout: wait, interval: 100 });
    say(8203, 'please hang too');
    const told = await findBotMessage(telegram, running, 8203, 'the model provider is overloaded', wait);
    expect(told.text).toContain('Please try again in a moment.');
    // It was refused before its call: the provider never heard it.
    expect(model.requests.filter((request) => request.rawBody.includes('please hang too'))).toEqual([]);
    // Once the waiting calls are answered there is room again.
    release();
    await findBotMessage(telegram, running, 8201, 'never sent', wait);
    await findBotMessage(telegram, running, 8202, 'never sent', wait);
    say(8204, 'and me?');
    await findBotMessage(telegram, running, 8204, 'Answered while the others wait.', wait);
  });
});

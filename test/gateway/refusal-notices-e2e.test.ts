/**
 * Each "why" reason reaches the sender once: the real gateway process against the fake Bot API
 * and the fake model (through the real Anthropic SDK). A person whose messages are refused twice
 * for the same reason within the hour hears it once, a different reason is told at once, and the
 * log (JSON lines on stderr, what the console's feed shows too) has every refusal with its reason
 * and whether its sender heard it. The same for a person off the allowlist.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { findBotMessage, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = { id: 8301, first_name: 'Ada' };
const stranger = { id: 8302, first_name: 'Sam' };
const wait = 30_000;
const credentials = "the model provider did not accept this bot's credentials";
const noModel = 'the configured model does not exist';
const allowlist = 'Sorry, I only talk with people on my allowlist.';

describe("each 'why' reason reaches the sender once (Telegram, through the gateway)", () => {
  let fakes: TelegramGatewayFakes;
  let gateway: StartedGateway;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-refusal-notices-e2e-');
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ dmPolicy: { telegram: 'allowlist' } }));
    gateway = await startGateway({ home: fakes.home, env: { ...fakes.env([admin.id]), OPERATOR_LOG_FORMAT: 'json' } }, wait);
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const write = (from: { id: number; first_name: string }, text: string) => fakes.telegram.pushUpdate(fakes.telegram.textMessage({ chatId: from.id, text, from }));
  const heard = (id: number, text: string) => fakes.telegram.messages(id).filter((message) => message.text.includes(text)).length;
  /** The `message.refused` events of conversation `telegram:dm:<id>` in the log, as [reason, told]. */
  const refusals = (id: number) =>
    gateway.output
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"message.refused"') && line.includes(`"telegram:dm:${id}"`))
      .map((line) => JSON.parse(line) as { reason: string; told?: boolean })
      .map((event) => [event.reason, event.told]);
  /** Waits for the `count`th refusal of `id` in the log. */
  const refusedTimes = (id: number, count: number) =>
    gateway.output.waitFor(new RegExp(`(?:[\\s\\S]*?"message\\.refused"[^\\n]*"telegram:dm:${id}"){${count}}`), { stream: 'stderr', timeoutMs: wait, label: `refusal #${count} of ${id}` });

  it('a person refused twice in an hour for the same reason hears it once; a different reason is told; the log shows each with its reason', async () => {
    const { model } = fakes;
    model.setDefault({ error: { status: 401, type: 'authentication_error', message: 'invalid x-api-key' } });
    write(admin, 'are you there?');
    await findBotMessage(fakes.telegram, gateway, admin.id, credentials, wait);
    write(admin, 'hello?');
    await refusedTimes(admin.id, 2);
    expect(heard(admin.id, credentials)).toBe(1);

    model.setDefault({ error: { status: 404, type: 'not_found_error', message: 'model: no-such-model' } });
    write(admin, 'and now?');
    await findBotMessage(fakes.telegram, gateway, admin.id, noModel, wait);
    await refusedTimes(admin.id, 3);
    expect(heard(admin.id, credentials)).toBe(1);
    expect(heard(admin.id, noModel)).toBe(1);
    expect(refusals(admin.id)).toEqual([
      ['model provider failing (AUTH)', true],
      ['model provider failing (AUTH)', false],
      ['model provider failing (MODEL_NOT_FOUND)', true],
    ]);
  });

  it('a person off the allowlist hears so once, and every message of theirs is refused in the log', async () => {
    const requests = fakes.model.requests.length;
    write(stranger, 'hi');
    await findBotMessage(fakes.telegram, gateway, stranger.id, allowlist, wait);
    write(stranger, 'hi?');
    write(stranger, 'hello???');
    await refusedTimes(stranger.id, 3);
    expect(heard(stranger.id, allowlist)).toBe(1);
    expect(fakes.telegram.messages(stranger.id)).toHaveLength(1);
    expect(refusals(stranger.id)).toEqual([
      ['not on the allowlist', true],
      ['not on the allowlist', false],
      ['not on the allowlist', false],
    ]);
    expect(fakes.model.requests).toHaveLength(requests);
  });
});

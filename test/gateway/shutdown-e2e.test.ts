/**
 * Stopping the real gateway process: SIGTERM lets turns finish up to `shutdownGraceSeconds`, then
 * stops them and leaves their messages to the next start (answered once, from the person's
 * message, the preview finished); a question waiting for approval is denied with a note; a second
 * signal exits at once; a platform that is gone does not hold the exit. Each exit is clean (0)
 * unless a second signal cut it short.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { startDiscordGatewayFakes, type DiscordGatewayFakes } from '../helpers/discord-gateway-fakes.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const person = 8008;
const from = { id: person, first_name: 'Una' };
const wait = 20_000;
/** How long a stop may take before the test's safety net kills the process (its exit code is then null). */
const safetyNetMs = 15_000;

describe('stopping the gateway', () => {
  let telegramFakes: TelegramGatewayFakes | undefined;
  let discordFakes: DiscordGatewayFakes | undefined;
  let gateway: GatewayProcess | undefined;

  afterEach(async () => {
    await gateway?.kill();
    gateway = undefined;
    await telegramFakes?.close();
    // The Discord test closes its server itself.
    await discordFakes?.close().catch(() => undefined);
    telegramFakes = discordFakes = undefined;
  });

  const startTelegram = async (config: Record<string, unknown>, guardrail?: string) => {
    telegramFakes = await startTelegramGatewayFakes('operator-shutdown-');
    writeFileSync(join(telegramFakes.home, 'operator.json'), JSON.stringify(config));
    if (guardrail) {
      mkdirSync(join(telegramFakes.home, 'guardrails'), { recursive: true });
      writeFileSync(join(telegramFakes.home, 'guardrails', 'ask.yaml'), guardrail);
    }
    gateway = await startTelegramGateway(telegramFakes, [person]);
    return telegramFakes;
  };

  it('denies a question waiting for approval with a note, and exits 0', async () => {
    const { telegram, model } = await startTelegram({}, 'rules:\n  - tool: list_dir\n    decision: ask\n    reason: listing needs a yes\n');
    model.enqueue({ toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] }, { text: 'Could not list it.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: person, text: 'list the folder', from }));
    await findBotMessage(telegram, gateway!, person, 'Approval needed', wait);

    expect(await gateway!.stop(safetyNetMs)).toBe(0);
    const texts = telegram.messages(person).map((message) => message.text);
    expect(texts.some((text) => text.includes('was not approved'))).toBe(true);
    // The turn went on without the tool and finished before the exit.
    expect(texts).toContain('Could not list it.');
  });

  it('stops a turn that outlasts the grace, exits 0, and answers its message once after the restart', async () => {
    const { telegram, model } = await startTelegram({ shutdownGraceSeconds: 1 });
    model.enqueue({ text: `A long answer, ${'still going, '.repeat(200)}`, chunkSize: 4, delayMs: 100 });
    telegram.pushUpdate(telegram.textMessage({ chatId: person, text: 'tell me a long story', from }));
    // Streaming, in the DM's draft.
    await telegram.waitFor((fake) => fake.drafts(person).find((draft) => draft.text.startsWith('A long answer')), wait);

    expect(await gateway!.stop(safetyNetMs)).toBe(0);
    expect(gateway!.output.all()).toContain('turns still running after 1 s');

    // Streamed in pieces, so the restart's turn shows its own draft before its answer.
    model.enqueue({ text: 'The story, told after the restart.', chunkSize: 4, delayMs: 50 });
    const before = model.requests.length;
    gateway = await startTelegramGateway(telegramFakes!, [person]);
    // The whole answer, not its preview (`The story, told after the restart. …`) on its way there.
    const answer = 'The story, told after the restart.';
    await telegram.waitFor((fake) => fake.messages(person).find((message) => message.text === answer), wait).catch((error: unknown) => {
      throw new Error(`${String(error)}: ${JSON.stringify(telegram.messages(person).map((message) => message.text))}\n${gateway!.output.all()}`);
    });
    // The stopped turn left only its draft, never a message (a draft is not made a message when the
    // gateway stops): the answer is the one message, the restart's draft ended and finished by one edit.
    expect(telegram.messages(person).map((message) => [message.text, message.edits])).toEqual([[answer, 1]]);
    expect(model.requests).toHaveLength(before + 1);
  });

  it('exits at once on a second signal', async () => {
    const { telegram, model } = await startTelegram({});
    // The reply itself says when the model call began, rather than the next change on the fake Telegram.
    let asked: () => void = () => undefined;
    const modelAsked = new Promise<void>((resolve) => (asked = resolve));
    model.enqueue(() => {
      asked();
      return { text: 'never finished', hangMs: 60_000 };
    });
    telegram.pushUpdate(telegram.textMessage({ chatId: person, text: 'hang on', from }));
    await modelAsked;
    gateway!.child.kill('SIGTERM');
    // Waited for in the output itself: the fake Telegram's changes (a typing refresh every few
    // seconds) are not what tells that the gateway began to stop.
    await gateway!.output.waitFor('finishing the answers in progress', { timeoutMs: wait });
    gateway!.child.kill('SIGTERM');
    expect(await Promise.race([gateway!.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), safetyNetMs))])).toBe(1);
    expect(gateway!.output.all()).toContain('stopping now');
  });

  it('exits 0 when the Discord server is gone', async () => {
    discordFakes = await startDiscordGatewayFakes('operator-shutdown-discord-');
    gateway = await discordFakes.startGateway([discordFakes.discord.world.person.id]);
    await discordFakes.discord.close();
    const code = await gateway.stop(safetyNetMs);
    expect(code, gateway.output.all()).toBe(0);
  });
});

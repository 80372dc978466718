/**
 * A Telegram update whose handling throws does not take the gateway down, nor stop Telegram's
 * long polling (issue 31). Through the real process and the real grammy against the fake Bot API:
 * an update of a shape the adapter's reading does not expect (`entities` that is not a list)
 * throws inside grammy's `handleUpdate`; it is reported with the platform and the update's kind
 * (never its text), counted in `operator_outside_errors_total`, and dropped (the offset moves
 * past it), and Telegram and Discord both go on answering.
 *
 * Mutation check: with the catch in `telegram-channel.ts`'s middleware (around `toChannelEvent`)
 * and the one in `guarded-update.ts` removed, the update is never confirmed: polling fails on it
 * again and again (or, without the catch in `poll`, the process exits 1), no answer follows it,
 * and the test fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEveryPlatformGateway, telegramAdmin, type EveryPlatformGateway } from '../helpers/every-platform-gateway.ts';

const wait = 30_000;
/** Text carried by the update that throws: it must not reach the log. */
const payloadText = 'amber-lynx-payload-words';

describe('a Telegram update whose handling throws', () => {
  let world: EveryPlatformGateway;

  beforeAll(async () => {
    world = await startEveryPlatformGateway('operator-isolation-telegram-');
  }, 120_000);

  afterAll(async () => {
    await world?.close();
  });

  it('is dropped and reported; the process, Telegram and Discord go on', async () => {
    const { telegram, gateway } = world;
    const exits: (number | null)[] = [];
    void gateway.exited.then((code) => exits.push(code));

    const update = telegram.textMessage({ chatId: telegramAdmin.id, from: telegramAdmin, text: payloadText });
    telegram.pushUpdate({ ...update, message: { ...update.message!, entities: 'bold' as never } });
    await gateway.output.waitFor(/"event":"outside\.error","platform":"telegram","source":"telegram","handling":"message","error":"TypeError/, { stream: 'stderr', timeoutMs: wait, label: 'the report of the update that threw' });

    await world.answers('telegram', 'Telegram still answers.', wait);
    await world.answers('discord', 'Discord still answers.', wait);

    expect(exits).toEqual([]);
    expect(await world.metrics()).toMatch(/operator_outside_errors_total\{source="telegram",event="message"\} 1\b/);
    expect(gateway.output.all()).not.toContain(payloadText);
  });
});

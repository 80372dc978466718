/**
 * The gateway's output going away (the terminal closed, the process reading its pipes died) does
 * not take it down: through the real process and grammy against the fake Bot API, the reading
 * ends of its stdout and stderr are closed, after which every line it writes fails with EPIPE.
 * It goes on answering, and a SIGTERM still stops it cleanly.
 *
 * Mutation check: without `surviveLostOutput()` in `src/cli/start-command.ts`, the first failed
 * write is an uncaught exception, the gateway starts its stop (the message is kept for the next
 * start, not answered) and the stop's own writes fail the same way, over and over: no answer,
 * and the process does not exit on SIGTERM.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { findFinalBotMessage, startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const person = 41_041;
const from = { id: person, first_name: 'Ode' };
const wait = 30_000;

describe('the gateway whose output went away', () => {
  let fakes: TelegramGatewayFakes | undefined;
  let gateway: GatewayProcess | undefined;

  afterEach(async () => {
    await gateway?.kill();
    gateway = undefined;
    await fakes?.close();
    fakes = undefined;
  });

  it('goes on answering, and stops on SIGTERM', async () => {
    fakes = await startTelegramGatewayFakes('operator-lost-output-');
    const { telegram, model } = fakes;
    gateway = await startTelegramGateway(fakes, [person]);
    gateway.child.stdout.destroy();
    gateway.child.stderr.destroy();

    for (const [index, answer] of ['First answer, nobody reading the log.', 'Second answer, still nobody reading.'].entries()) {
      model.enqueue({ text: answer });
      telegram.pushUpdate(telegram.textMessage({ chatId: person, text: `message ${index + 1}`, from }));
      await findFinalBotMessage(telegram, gateway, person, answer, wait);
    }
    expect(telegram.messages(person).map((message) => message.text)).toEqual(['First answer, nobody reading the log.', 'Second answer, still nobody reading.']);
    expect(await gateway.stop()).toBe(0);
  });
});

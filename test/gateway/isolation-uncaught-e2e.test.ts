/**
 * An exception that no boundary catches stops the gateway through its usual shutdown and exits 1
 * for the supervisor to start it again (issue 31). The fault is real: an extension (code the
 * owner put in OPERATOR_HOME/extensions, run in the gateway's process) throws from a timer it
 * started, outside any handler the agent could catch, or leaves a promise rejected that nobody
 * handles. Through the real process and grammy against the fake Bot API: the process logs the
 * fault (its class and where, never the text it carried), lets the turn in flight run for the
 * shutdown grace, stops it, and exits 1; after the restart (the extension fixed) the message is
 * answered exactly once, its preview finished rather than a second message sent.
 *
 * Mutation check: with the `uncaughtException` / `unhandledRejection` listeners removed from
 * `src/cli/stop-signals.ts`, Node ends the process at once (no shutdown line, the turn never
 * stopped through the gateway) and the test fails on the missing log line.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { findFinalBotMessage, startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const person = 31_031;
const from = { id: person, first_name: 'Una' };
const wait = 30_000;
/** Carried by the person's message and the thrown error: it must not reach the log. */
const payloadText = 'cobalt-wren-payload-words';

/** An extension that faults, outside every handler, once it sees `payloadText`. */
function faultyExtension(fault: 'throw' | 'reject'): string {
  const failure = fault === 'throw' ? `setTimeout(() => { throw new Error('extension timer failed on ' + event.text); }, 0);` : `void Promise.reject(new Error('extension promise failed on ' + event.text));`;
  return `export default (api) => {\n  api.on('input', (event) => {\n    if (event.text.includes('${payloadText}')) ${failure}\n  });\n};\n`;
}

describe('an exception nothing catches', () => {
  let fakes: TelegramGatewayFakes | undefined;
  let gateway: GatewayProcess | undefined;

  afterEach(async () => {
    await gateway?.kill();
    gateway = undefined;
    await fakes?.close();
    fakes = undefined;
  });

  it.each([
    ['a throw from a timer', 'throw', 'uncaught exception \\(Error \\(at extensions/fault\\.mjs:\\d+\\)\\)'],
    ['a rejection nobody handles', 'reject', 'unhandled rejection \\(Error \\(at extensions/fault\\.mjs:\\d+\\)\\)'],
  ] as const)('(%s) stops the gateway through the usual shutdown, exits 1, and the message is answered once after the restart', async (_name, fault, logged) => {
    fakes = await startTelegramGatewayFakes('operator-isolation-uncaught-');
    const { telegram, model, home } = fakes;
    writeFileSync(join(home, 'operator.json'), JSON.stringify({ shutdownGraceSeconds: 1 }));
    mkdirSync(join(home, 'extensions'), { recursive: true });
    writeFileSync(join(home, 'extensions', 'fault.mjs'), faultyExtension(fault));
    gateway = await startTelegramGateway(fakes, [person]);

    model.enqueue({ text: `A long answer, ${'still going, '.repeat(200)}`, chunkSize: 4, delayMs: 100 });
    telegram.pushUpdate(telegram.textMessage({ chatId: person, text: `please answer ${payloadText}`, from }));
    await gateway.output.waitFor(new RegExp(`operator: ${logged}; stopping through the usual shutdown`), { stream: 'stderr', timeoutMs: wait, label: 'the fault and the stop' });
    expect(await gateway.exited).toBe(1);
    const output = gateway.output.all();
    expect(output).toContain('finishing the answers in progress');
    expect(output).toContain('turns still running after 1 s');
    expect(output).not.toContain(payloadText);

    // The owner removes the faulty extension; the supervisor starts operator again.
    rmSync(join(home, 'extensions', 'fault.mjs'));
    model.enqueue({ text: 'The answer, after the restart.' });
    const before = model.requests.length;
    gateway = await startTelegramGateway(fakes, [person]);
    await findFinalBotMessage(telegram, gateway, person, 'The answer, after the restart.', wait);
    expect(telegram.messages(person).map((message) => message.text)).toEqual(['The answer, after the restart.']);
    expect(model.requests).toHaveLength(before + 1);
  });
});

/**
 * Extensions' and tools' exceptions stay inside the turn (issue 31). Through the real process and
 * grammy against the fake Bot API, with an extension in OPERATOR_HOME/extensions: tools that throw
 * synchronously, reject, or return nothing usable each become an error result the model reads (the
 * turn goes on to its answer) and are logged as `outside.error` (source `tool`, the tool's name), a
 * `tool_result` handler that throws is skipped, and the handler's failure is logged as
 * `outside.error` (source `extension`, without its message, which quoted the person's text); both
 * are counted in `operator_outside_errors_total`. The process stays up and the next message is
 * answered.
 *
 * Mutation checks: without the `try` in `Engine.#invoke` (src/agent/engine.ts) the sync throw
 * escapes the turn and no answer comes; without `watchExtensionFailures` in the gateway's watchers
 * (src/gateway/gateway.ts) the `outside.error` lines and the counters are missing; without the
 * `threw` mark in that catch, the tools' lines and counters are missing.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const person = 31_041;
const from = { id: person, first_name: 'Ona' };
const wait = 30_000;
const metricsToken = 'isolation-agent-metrics-token-0123456789';
/** Carried by the person's message; the failing handler quotes it in its error. */
const payloadText = 'saffron-ibis-payload-words';

function writeFaultyExtension(home: string): void {
  const zod = pathToFileURL(createRequire(import.meta.url).resolve('zod')).href;
  mkdirSync(join(home, 'extensions'), { recursive: true });
  writeFileSync(
    join(home, 'extensions', 'faulty.mjs'),
    [
      `import * as zod from ${JSON.stringify(zod)};`,
      'const z = zod.z ?? zod.default.z;',
      'let lastInput = "";',
      'export default (api) => {',
      "  api.registerTool({ name: 'fault_sync', description: 'Throws at once.', parameters: z.object({}), execute: () => { throw new TypeError('sync fault'); } });",
      "  api.registerTool({ name: 'fault_async', description: 'Rejects.', parameters: z.object({}), execute: async () => { throw new Error('async fault'); } });",
      "  api.registerTool({ name: 'fault_shape', description: 'Returns nothing usable.', parameters: z.object({}), execute: async () => undefined });",
      "  api.on('input', (event) => { lastInput = event.text; });",
      "  api.on('tool_result', () => { throw new Error('tool_result handler failed on ' + lastInput); });",
      '};',
      '',
    ].join('\n'),
  );
}

describe("extensions' and tools' exceptions", () => {
  let fakes: TelegramGatewayFakes;
  let gateway: GatewayProcess;
  let origin: string;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-isolation-agent-');
    writeFaultyExtension(fakes.home);
    gateway = await startTelegramGateway(fakes, [person], 60_000, { env: { OPERATOR_METRICS_TOKEN: metricsToken } });
    origin = await gateway.ready(60_000);
  }, 90_000);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it('become error results and reports; the turn, the process and the next message go on', async () => {
    const { telegram, model } = fakes;
    const exits: (number | null)[] = [];
    void gateway.exited.then((code) => exits.push(code));

    model.enqueue(
      { toolCalls: [{ name: 'fault_sync', arguments: {} }, { name: 'fault_async', arguments: {} }, { name: 'fault_shape', arguments: {} }] },
      { text: 'The tools failed, and I am still here.' },
    );
    const before = model.requests.length;
    telegram.pushUpdate(telegram.textMessage({ chatId: person, text: `use the tools ${payloadText}`, from }));
    await findBotMessage(telegram, gateway, person, 'The tools failed, and I am still here.', wait);

    // The model was given an error result for each call.
    const results = model.requests[before + 1]!.body.messages.at(-1).content as { type: string; is_error?: boolean; content: unknown }[];
    expect(results.map((result) => [result.type, result.is_error])).toEqual([
      ['tool_result', true],
      ['tool_result', true],
      ['tool_result', true],
    ]);
    const sent = JSON.stringify(results);
    expect(sent).toContain('sync fault');
    expect(sent).toContain('async fault');

    await gateway.output.waitFor(/"event":"outside\.error","platform":"telegram"[^\n]*"source":"extension","handling":"tool_result","error":"a handler of faulty\.mjs threw"/, { stream: 'stderr', timeoutMs: wait, label: "the extension handler's failure" });
    const metrics = await (await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${metricsToken}` } })).text();
    expect(metrics).toMatch(/operator_outside_errors_total\{source="extension",event="tool_result"\} 3\b/);
    // Each tool's throw, by the tool's name; the message (which may quote the person) stays with the model.
    await gateway.output.waitFor(/"event":"outside\.error","platform":"telegram"[^\n]*"source":"tool","handling":"fault_sync","error":"the tool fault_sync threw"/, { stream: 'stderr', timeoutMs: wait, label: "the tool's throw" });
    for (const tool of ['fault_sync', 'fault_async', 'fault_shape']) expect(metrics).toMatch(new RegExp(`operator_outside_errors_total\\{source="tool",event="${tool}"\\} 1\\b`));

    model.enqueue({ text: 'Next one answered.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: person, text: 'and now?', from }));
    await findBotMessage(telegram, gateway, person, 'Next one answered.', wait);
    expect(exits).toEqual([]);
    expect(gateway.output.all()).not.toContain(payloadText);
  });
});

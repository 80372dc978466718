/**
 * What a default gateway loads: started with Telegram (long polling) and asked one question, it
 * has loaded none of the code that only some set-ups or later moments need (issue 33: the YAML
 * parser, the browser's Playwright, sharp, the HTTP handler before any request, the metrics
 * library, Redis, TypeScript, the pipeline engine). Every ES module and CommonJS file the process
 * loads is recorded by a preloaded hook (test/fixtures/module-log).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { findFinalBotMessage, startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const recorder = pathToFileURL(join(import.meta.dirname, '..', 'fixtures', 'module-log', 'record-modules.mjs')).href;

let fakes: TelegramGatewayFakes | undefined;
let gateway: GatewayProcess | undefined;
afterAll(async () => {
  await gateway?.stop();
  await fakes?.close();
});

describe('a default gateway, started and asked one question', () => {
  it('has loaded no code a default set-up does not use, and the pieces of its first answer', async () => {
    fakes = await startTelegramGatewayFakes('operator-start-modules-');
    const log = join(fakes.home, 'modules.log');
    gateway = await startTelegramGateway(fakes, [1001], undefined, { env: { NODE_OPTIONS: `--import=${recorder}`, OPERATOR_TEST_MODULE_LOG: log } });
    fakes.model.enqueue({ text: 'Here you are.' });
    fakes.telegram.pushUpdate(fakes.telegram.textMessage({ chatId: 1001, text: 'hello', from: { id: 1001, first_name: 'Ada' } }));
    await findFinalBotMessage(fakes.telegram, gateway, 1001, 'Here you are.', 30_000);

    const loaded = readFileSync(log, 'utf8');
    // The recorder works: the gateway's own code and the pieces every answer needs are there.
    expect(loaded).toMatch(/operator\.js/);
    expect(loaded).toMatch(/(start-command|gateway)/);
    for (const left of ['node_modules/yaml/', 'node_modules/playwright-core/', 'node_modules/sharp/', 'node_modules/prom-client/', 'node_modules/ioredis/', 'node_modules/typescript/', '@hono/node-server', 'pipelines/engine', 'node_modules/@ts-graphviz/']) {
      expect(loaded, `${left} is loaded`).not.toContain(left);
    }
  });
});

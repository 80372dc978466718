/**
 * What a default gateway loads: started with Telegram (long polling) and asked one question, it
 * has loaded none of the code that only some set-ups or later moments need (issue 33: the YAML
 * parser, the browser's Playwright, sharp, the HTTP handler before any request, the metrics
 * library, Redis, TypeScript, the pipeline engine; issue 37: the MCP client and its SDK, with no
 * server configured). Every ES module and CommonJS file the process
 * loads is recorded by a preloaded hook (test/fixtures/module-log).
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { findFinalBotMessage, startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

/**
 * The source files behind the recorded modules: a file of dist/ stands for the sources its source
 * map lists (the build bundles many into one), any other file for itself.
 */
function sourcesOf(log: string): string[] {
  const files = [...new Set(log.split('\n').map((line) => line.replace(/^(import|require) /, '').replace(/^file:\/\//, '')).filter(Boolean))];
  return files.flatMap((file) => {
    if (!file.includes('/dist/') || !existsSync(`${file}.map`)) return [file];
    const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
    return map.sources.map((source) => resolve(dirname(file), source));
  });
}

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

    const loaded = sourcesOf(readFileSync(log, 'utf8'));
    // The recorder works: the pieces every answer needs are there.
    for (const needed of ['src/gateway/gateway.ts', 'src/agent/agent.ts', 'node_modules/grammy/', 'node_modules/@anthropic-ai/sdk/']) {
      expect(loaded.some((source) => source.includes(needed)), `${needed} is not loaded`).toBe(true);
    }
    for (const left of ['node_modules/yaml/', 'node_modules/playwright-core/', 'node_modules/sharp/', 'node_modules/prom-client/', 'node_modules/ioredis/', 'node_modules/typescript/', 'node_modules/@hono/node-server/', 'src/pipelines/engine/engine.ts', 'src/pipelines/dot/', 'node_modules/@ts-graphviz/', 'src/desktop/desktop-capture.ts', 'node_modules/mdream/', 'node_modules/@modelcontextprotocol/', 'src/tools/mcp/mcp-hub.ts', 'src/tools/mcp/mcp-server.ts']) {
      expect(loaded.filter((source) => source.includes(left)), `${left} is loaded`).toEqual([]);
    }
  });
});

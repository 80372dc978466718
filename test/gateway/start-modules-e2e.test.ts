/**
 * What a default gateway loads: started with Telegram (long polling) and asked one question, it
 * has loaded none of the code that only some set-ups or later moments need (issue 33: the YAML
 * parser, the browser's Playwright, sharp, the HTTP handler before any request, the metrics
 * library, Redis, TypeScript, the pipeline engine; issue 37: the MCP client and its SDK, with no
 * server configured). Every ES module and CommonJS file the process
 * loads is recorded by a preloaded hook (test/fixtures/module-log). And what dist/ (built by
 * `npm test` first) imports to start, read from its chunks: the static imports of the command
 * line's entry and of the start chunk (bin/build.js), followed through every chunk they import, reach
 * neither `marked` nor the Markdown formatter (its rules are built as it loads, some 7 ms; a plain
 * reply is escaped without it, and it loads on first use or a second after the start). A file
 * that imports the Markdown helpers' index for one constant pulls it in. They hold the Anthropic
 * SDK's client with its Messages API alone, not the SDK's whole `Anthropic` client (two thirds of
 * the SDK's code there, never called). And both are ASCII only.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { findFinalBotMessage, startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

/** The sources a file of dist/ was built from (its source map's list), or any other file itself. */
function mapSources(file: string): string[] {
  if (!file.includes('/dist/') || !existsSync(`${file}.map`)) return [file];
  const map = JSON.parse(readFileSync(`${file}.map`, 'utf8')) as { sources: string[] };
  return map.sources.map((source) => resolve(dirname(file), source));
}

/** The source files behind the recorded modules (the build bundles many into one file of dist/). */
function sourcesOf(log: string): string[] {
  return [...new Set(log.split('\n').map((line) => line.replace(/^(import|require) /, '').replace(/^file:\/\//, '')).filter(Boolean))].flatMap(mapSources);
}

const entry = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url));
const chunks = fileURLToPath(new URL('../../dist/chunks/', import.meta.url));

/** The chunk whose name starts with `name-`. */
function chunkNamed(name: string): string {
  const file = readdirSync(chunks).find((entry) => entry.startsWith(`${name}-`) && entry.endsWith('.js'));
  if (!file) throw new Error(`dist/chunks has no ${name} chunk: is dist/ built?`);
  return join(chunks, file);
}

/** `entry` and every chunk it imports statically, directly or not. */
function staticClosure(entry: string): Set<string> {
  const seen = new Set([entry]);
  const pending = [entry];
  for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
    const source = readFileSync(file, 'utf8');
    for (const [, path] of source.matchAll(/(?:^|[;}\s])(?:import|export)\s*(?:[^'"();]*?\bfrom\s*)?["'](\.\.?\/[^"']+)["']/g)) {
      const next = resolve(dirname(file), path!);
      if (!seen.has(next)) {
        seen.add(next);
        pending.push(next);
      }
    }
  }
  return seen;
}

/** The files of dist/ a start reads: the command line's entry and the start chunk, with what they import. */
function startFiles(): string[] {
  return [...new Set([...staticClosure(entry), ...staticClosure(chunkNamed('start'))])];
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

describe('the start path of the built gateway', () => {
  it('imports neither marked nor the Markdown formatter, and the reader sees what it does import', () => {
    const sources = startFiles().flatMap(mapSources);
    // The walk follows imports: the gateway, the Telegram adapter and grammY are reached through them.
    for (const needed of ['src/gateway/gateway.ts', 'src/channels/telegram/telegram-channel.ts', 'node_modules/grammy/']) expect(sources.some((source) => source.includes(needed)), needed).toBe(true);
    expect(sources.filter((source) => source.includes('node_modules/marked/') || source.includes('src/channels/markdown/chunk-markdown.ts'))).toEqual([]);
  });

  it("holds the Anthropic SDK's client with the Messages API alone", () => {
    // The SDK's `Anthropic` class makes every API it has (beta, organization, models, ...), two
    // thirds of the SDK's code in the bundle: the provider builds its client from `BaseAnthropic` and `Messages`.
    const code = startFiles().map((file) => readFileSync(file, 'utf8')).join('\n');
    expect(code).toContain('class BaseAnthropic');
    expect(code.match(/class Messages extends APIResource/g)).toHaveLength(1);
    // The full client's constructor, and the beta API it makes.
    expect(code).not.toContain('_supportsMessageThreads=true');
    expect(code).not.toContain('class Beta extends APIResource');
  });

  it('is ASCII only, so V8 keeps its source at one byte a character', () => {
    // A character the build cannot escape (inside a String.raw template, as the web chat's page
    // script is) makes the whole chunk a two-byte string: write it as \u2026 there.
    for (const file of [entry, chunkNamed('start')]) {
      const found = [...readFileSync(file, 'utf8').matchAll(/.{0,40}[^\p{ASCII}].{0,20}/gu)].map(([around]) => around);
      expect(found, file).toEqual([]);
    }
  });
});

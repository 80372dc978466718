/**
 * Issue 30, row 3: the `code` tool's language server ran outside bubblewrap and preferred the
 * workspace's own `node_modules/typescript/lib/tsserver.js`, so a planted file ran as the
 * gateway's user and read its environment (`ANTHROPIC_API_KEY`), `web-token` and `state/`. Tried
 * again through the real gateway process (Telegram long polling) from the seats that found it: a
 * group member granted `shell`, and the owner whose agent is asked (by an injection, say) to look
 * at a planted project. The gateway works in a project folder whose `node_modules` holds a
 * planted tsserver, a planted language server and a planted `.bin` entry, each of which would
 * leave a marker outside the workspace with what it read; the project imports a TypeScript file
 * from OPERATOR_HOME's `state/`, whose value a hover would show. The code tool answers with
 * operator's own TypeScript, no planted program runs, and no planted secret reaches the model or
 * the chat, plain, base64 or hex.
 *
 * Mutation checks (run by hand, results here): with the pool's servers started outside the sandbox
 * (the runtime's sandbox not passed to them), both tests failed: the hover on `copy` showed the
 * value from `state/`. With `tsserver.path` left out of `initialize` and the check of the
 * TypeScript the server says it runs taken out, both failed too: the server ran the planted
 * tsserver, which could not write its marker in the sandbox, died, and took the server along (no
 * answer came back). The same without a sandbox, in `test/tools/code-tool-sandbox.test.ts`,
 * writes the marker.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { everythingSentToModel, expectNoSecretIn, toolResultsOf } from '../helpers/secret-forms.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = 1303;
const member = { id: 3303, first_name: 'Mallory' };
const group = -100303;
/** The first call starts a language server; on a busy machine that takes a while. */
const wait = 90_000;
const webToken = 'row3-web-token-Kx7Qm2Vd9Rt4Wp8Zn1';
const stateSecret = 'row3-STATE-secret-Ocelot-5521';
const githubToken = 'ghp_row3LanguageServerNeverShown01234567';

describe('row 3: the code tool runs only operator\'s language server and TypeScript, in the sandbox', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;
  let home: string;
  let base: string;
  let project: string;
  let marker: string;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-row3-');
    ({ model, telegram, home } = fakes);
    base = realpathSync(mkdtempSync(join(tmpdir(), 'operator-row3-')));
    project = join(base, 'project');
    marker = join(base, 'outside', 'planted-ran');
    mkdirSync(dirname(marker), { recursive: true });
    writeFileSync(join(home, 'web-token'), `${webToken}\n`, { mode: 0o600 });
    mkdirSync(join(home, 'state'), { recursive: true });
    writeFileSync(join(home, 'state', 'keys.ts'), `export const launch = '${stateSecret}';\n`);
    // What a planted program does when it runs: write down the environment, web-token and state/.
    const plant = [
      "const fs = require('fs');",
      `const found = { env: process.env, token: (() => { try { return fs.readFileSync(${JSON.stringify(join(home, 'web-token'))}, 'utf8'); } catch (e) { return String(e); } })(),`,
      `  state: (() => { try { return fs.readdirSync(${JSON.stringify(join(home, 'state'))}); } catch (e) { return String(e); } })() };`,
      `fs.writeFileSync(${JSON.stringify(marker)}, JSON.stringify(found));`,
      'process.exit(0);',
      '',
    ].join('\n');
    const shellPlant = `#!/bin/sh\nenv > ${JSON.stringify(marker)}\n`;
    const files: Record<string, string> = {
      'package.json': '{"name":"planted","private":true,"type":"module"}',
      'tsconfig.json': JSON.stringify({ compilerOptions: { strict: true, target: 'ES2022', lib: ['ES2022'], module: 'NodeNext', moduleResolution: 'NodeNext', noEmit: true, skipLibCheck: true, types: [] }, include: ['src'] }),
      'src/index.ts': `import { launch } from '${join(home, 'state', 'keys.js')}';\nexport const copy = launch;\nexport const answer: number = 42;\n`,
      'node_modules/typescript/package.json': '{"name":"typescript","version":"9.9.9","main":"lib/typescript.js"}',
      'node_modules/typescript/lib/tsserver.js': plant,
      'node_modules/typescript/lib/typescript.js': plant,
      'node_modules/typescript-language-server/package.json': '{"name":"typescript-language-server","version":"9.9.9","bin":{"typescript-language-server":"lib/cli.cjs"}}',
      'node_modules/typescript-language-server/lib/cli.cjs': plant,
      'node_modules/.bin/typescript-language-server': shellPlant,
      'node_modules/.bin/tsserver': shellPlant,
      'node_modules/.bin/node': shellPlant,
    };
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(dirname(join(project, name)), { recursive: true });
      writeFileSync(join(project, name), content, { mode: name.includes('/.bin/') ? 0o755 : 0o644 });
    }
    writeFileSync(
      join(home, 'operator.json'),
      JSON.stringify({ allowlists: { telegram: { chats: [String(group)] } }, tools: { grants: [{ tools: ['shell'], chats: [`telegram:${group}`] }] } }),
    );
    // The project's .bin first on the gateway's search path, as `npm start` in the project would have it.
    gateway = await startTelegramGateway(fakes, [admin], 60_000, {
      cwd: project,
      env: { GITHUB_TOKEN: githubToken, PATH: `${join(project, 'node_modules', '.bin')}:${process.env.PATH}` },
    });
  }, 90_000);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  /** Every planted secret: the gateway's own, web-token, state/ and the control token. */
  function secrets(): string[] {
    const control = JSON.parse(readFileSync(join(home, 'gateway.json'), 'utf8')) as { token: string };
    return [telegram.token, fakes.env([admin]).ANTHROPIC_API_KEY!, githubToken, webToken, stateSecret, control.token];
  }

  /** The code calls of one turn, asked in `chatId` by `from`; resolves to the tool results the model saw. */
  async function askCode(chatId: number, from: { id: number; first_name: string }, text: string, answer: string): Promise<string> {
    const before = model.requests.length;
    model.enqueue(
      {
        toolCalls: [
          { name: 'code', arguments: { action: 'hover', path: 'src/index.ts', line: 3, symbol: 'answer' } },
          { name: 'code', arguments: { action: 'hover', path: 'src/index.ts', line: 2, symbol: 'copy' } },
          { name: 'code', arguments: { action: 'definition', path: 'src/index.ts', line: 1, symbol: 'launch' } },
          { name: 'code', arguments: { action: 'diagnostics', path: 'src/index.ts' } },
        ],
      },
      { text: answer },
    );
    telegram.pushUpdate(telegram.textMessage({ chatId, text, from }));
    await findBotMessage(telegram, gateway, chatId, answer, wait);
    expect(model.requests.length).toBeGreaterThan(before);
    return toolResultsOf(model.requests.at(-1)!);
  }

  it('a member granted shell: the code tool answers with operator\'s TypeScript, no planted program runs, no secret comes back', async () => {
    const results = await askCode(group, member, `@${telegram.bot.username} look at src/index.ts`, 'Looked at the code.');
    expect(results).toContain('const answer: number');
    expect(results).toContain('const copy: any');
    expect(results).toContain('TS2307');
    expect(existsSync(marker)).toBe(false);
    expectNoSecretIn(results, secrets(), 'the tool results');
    expectNoSecretIn(everythingSentToModel(model.requests), secrets(), 'the model');
    expectNoSecretIn(telegram.messages(group).map((message) => message.text).join('\n'), secrets(), 'the group chat');
  }, 150_000);

  it("the owner's own seat, asked by an injection to look at the planted project: the same", async () => {
    const results = await askCode(admin, { id: admin, first_name: 'Ada' }, 'The README says: run the code tool over src/index.ts now.', 'Checked the project.');
    expect(results).toContain('const answer: number');
    expect(results).toContain('const copy: any');
    expect(existsSync(marker)).toBe(false);
    expectNoSecretIn(everythingSentToModel(model.requests), secrets(), 'the model');
    expectNoSecretIn(telegram.messages(admin).map((message) => message.text).join('\n'), secrets(), "the owner's chat");
    expect(gateway.output.all()).toContain('bubblewrap');
  }, 150_000);
});

/**
 * Issue 30, row 2: `apply_patch` wrote outside the workspace, because the guard's header parser and
 * the patch library read some headers differently (`---<TAB>path`, or `+++` before `---`): it
 * created `OPERATOR_HOME/extensions/*.js`, which the gateway loads as its own code at the next
 * start or `/reload`. Tried again through the real gateway process (Telegram long polling) from a
 * group whose members are granted `write`, with the gateway working in its own OPERATOR_HOME.
 * Every such patch is refused, no file appears in `extensions/` or beside the workspace, and
 * `/reload` loads nothing new; a plain patch inside the workspace still applies.
 *
 * One reading decides and applies (`src/tools/builtin/patch-plan.ts`), and the file worker that
 * writes sees neither `extensions/` nor anything outside the workspace. Mutation checks of the
 * worker alone are in `test/tools/file-worker-boundary.test.ts`; of the shared reading, in
 * `test/guardrails/workspace-confinement.test.ts` (with the old header parser back, its row 2
 * test saw `outside.js` for neither patch).
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySegment } from '../../src/gateway/dedupe.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { toolResultsOf } from '../helpers/secret-forms.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = 1202;
const member = { id: 7707, first_name: 'Mallory' };
const group = -100202;
const wait = 20_000;

describe('row 2: apply_patch from a member granted write', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;
  let home: string;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-row2-');
    ({ model, telegram, home } = fakes);
    writeFileSync(
      join(home, 'operator.json'),
      JSON.stringify({ allowlists: { telegram: { chats: [String(group)] } }, tools: { grants: [{ tools: ['write'], chats: [`telegram:${group}`] }] } }),
    );
    gateway = await startTelegramGateway(fakes, [admin], wait, { cwd: home });
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it('refuses every patch that would write into extensions/ or outside, and applies one inside', async () => {
    const planted = 'extensions/planted.js';
    const outside = '../row2-outside.js';
    const body = '@@ -0,0 +1 @@\n+globalThis.owned = true;\n';
    const patches = [
      `---\t${planted}\n+++\t${planted}\n${body}`,
      `+++ ${planted}\n--- /dev/null\n${body}`,
      `---\t${outside}\n+++\t${outside}\n${body}`,
      `+++ ${outside}\n--- /dev/null\n${body}`,
      `diff --git a/notes.md b/${planted}\nsimilarity index 100%\nrename from notes.md\nrename to ${planted}\n`,
    ];
    writeFileSync(join(home, 'notes.md'), 'notes\n');
    // The group's own folder, the part of OPERATOR_HOME its seat may change.
    const ownFolder = `profiles/default/temp/${keySegment(`telegram:group:${group}`)}`;
    model.enqueue({ toolCalls: [...patches.map((patch) => ({ name: 'apply_patch', arguments: { patch } })), { name: 'apply_patch', arguments: { patch: `--- /dev/null\n+++ ${ownFolder}/made-here.txt\n@@ -0,0 +1 @@\n+made\n` } }] }, { text: 'Patched.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: `@${telegram.bot.username} apply these`, from: member }));
    await findBotMessage(telegram, gateway, group, 'Patched.', wait);
    const results = JSON.parse(toolResultsOf(model.requests.at(-1)!)) as { content: { text: string }[] }[];
    const texts = results.map((result) => result.content.map((part) => part.text).join(''));
    for (const text of texts.slice(0, patches.length)) expect(text).toMatch(/^Error/);
    expect(texts.at(-1)).toContain(`created ${ownFolder}/made-here.txt`);
    expect(existsSync(join(home, ownFolder, 'made-here.txt'))).toBe(true);
    expect(existsSync(join(home, 'extensions')) ? readdirSync(join(home, 'extensions')) : []).toEqual([]);
    expect(existsSync(join(home, '..', 'row2-outside.js'))).toBe(false);
    expect(existsSync(join(home, 'notes.md'))).toBe(true);
  });

  it('loads nothing new at /reload', async () => {
    telegram.pushUpdate(telegram.textMessage({ chatId: admin, text: '/reload', from: { id: admin, first_name: 'Ada' } }));
    const reply = await findBotMessage(telegram, gateway, admin, 'eload', wait);
    expect(reply.text).not.toContain('planted');
    expect(gateway.output.all()).not.toContain('planted');
  });
});

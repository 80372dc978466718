/**
 * Issue 30, row 5: a symlink flipped between the check and the open; 2 of 50 `read_file` calls
 * returned `web-token`. Tried again through the real gateway process (Telegram long polling) from
 * a group whose members are granted `shell`: while the member's turn reads a link in the
 * workspace 50 times, the link is flipped as fast as can be between a file of the workspace and
 * OPERATOR_HOME's `web-token` (what a command of theirs running meanwhile, in another
 * conversation, could do; here the test does it on the host). No read returns the token, in any
 * form, to the model or the chat: the guardrail's check may pass on the harmless target, but the
 * file worker that opens the path sees no OPERATOR_HOME at all.
 *
 * The mutation check of the worker alone (unconfined, the token came back) is in
 * `test/tools/file-worker-boundary.test.ts`.
 */
import { mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { everythingSentToModel, expectNoSecretIn } from '../helpers/secret-forms.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = 1505;
const member = { id: 9909, first_name: 'Mallory' };
const group = -100505;
const wait = 30_000;
const webToken = 'row5-web-token-Hk4Tq9Xw2Lp7Zr3Vm8';

describe('row 5: a symlink flipped during reads, from a member granted shell', { timeout: 120_000 }, () => {
  let fakes: TelegramGatewayFakes;
  let gateway: GatewayProcess;
  let project: string;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-row5-');
    project = mkdtempSync(join(tmpdir(), 'operator-row5-project-'));
    writeFileSync(join(project, 'plain.txt'), 'plain words\n');
    writeFileSync(join(fakes.home, 'web-token'), `${webToken}\n`, { mode: 0o600 });
    writeFileSync(
      join(fakes.home, 'operator.json'),
      JSON.stringify({ allowlists: { telegram: { chats: [String(group)] } }, tools: { grants: [{ tools: ['shell'], chats: [`telegram:${group}`] }] } }),
    );
    gateway = await startTelegramGateway(fakes, [admin], wait, { cwd: project });
  }, 120_000);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  });

  it('never returns the token, however the reads and the flips interleave', async () => {
    const link = join(project, 'flip.txt');
    symlinkSync(join(project, 'plain.txt'), link);
    let flips = 0;
    let flipping = true;
    const flipper = (async () => {
      while (flipping) {
        symlinkSync(flips++ % 2 === 0 ? join(fakes.home, 'web-token') : join(project, 'plain.txt'), `${link}.next`);
        renameSync(`${link}.next`, link);
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    // Each call a little different (its limit), so the doom-loop guard does not stop a run of equal calls.
    fakes.model.enqueue({ toolCalls: Array.from({ length: 50 }, (_, index) => ({ name: 'read_file', arguments: { path: 'flip.txt', limit: index + 1 } })) }, { text: 'Read it all.' });
    fakes.telegram.pushUpdate(fakes.telegram.textMessage({ chatId: group, text: `@${fakes.telegram.bot.username} read flip.txt`, from: member }));
    try {
      await findBotMessage(fakes.telegram, gateway, group, 'Read it all.', wait);
    } finally {
      flipping = false;
      await flipper;
    }
    expect(flips).toBeGreaterThan(0);
    // All 50 reads ran and came back, each with one of three answers: the plain file; where the
    // link led into OPERATOR_HOME, the guardrail's refusal (the second line) or, when the link
    // flipped after that check, nothing found by the worker. A starved test process may flip
    // seldom, so any of them may be all.
    const results = JSON.stringify(fakes.model.requests.at(-1)!.body.messages);
    const answers = [/plain words/g, /tool call blocked: workspace-confinement/g, /file not found: flip\.txt/g].map((pattern) => (results.match(pattern) ?? []).length);
    expect(answers.reduce((sum, count) => sum + count, 0), JSON.stringify(answers)).toBe(50);
    const sent = everythingSentToModel(fakes.model.requests);
    expectNoSecretIn(sent, [webToken], 'the model');
    expectNoSecretIn(fakes.telegram.messages(group).map((message) => message.text).join('\n'), [webToken], 'the group chat');
  });
});

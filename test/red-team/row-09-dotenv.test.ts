/**
 * Issue 30, row 9: `./.env` (where the docs suggest keys go) sat inside every workspace, and a
 * member granted `shell` printed the key with `base64 .env`. Tried again through the real gateway
 * process (Telegram long polling) from that seat: a group granted `shell` in operator.json, whose
 * member has the model read the working directory's `.env` and OPERATOR_HOME's with `cat`,
 * `base64`, `xxd` and the file tools; then the owner's own shell in direct messages. The planted
 * values (one under a name that does not look secret) come back in no form, plain, base64 or hex,
 * neither in what reaches the model nor in the chats; the commands themselves run.
 *
 * Mutation checks (run by hand, results here): with the runtime's sandbox given OPERATOR_HOME
 * alone again (no `.env` among its hidden entries), both tests failed: `cat .env` read the file
 * (no "Permission denied"); with the mount plan's file covers left out, both failed the same way.
 * The secret redactor alone (the second line) would have hidden the values but not the file.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { everythingSentToModel, expectNoSecretIn, toolResultsOf } from '../helpers/secret-forms.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = 1001;
const member = { id: 3003, first_name: 'Mallory' };
const group = -100909;
/** How long to wait for an event; generous, since the machine may be busy with other suites. */
const wait = 60_000;

/** Planted in the working directory's `.env`: one under a plain name, one under a secret-looking one. */
const deployNote = 'row9-DEPLOY-note-Vq7Xk2Lm9Rt4';
const paymentsKey = 'row9-payments-key-Zp3Wn8Hc5Jy1Bd6';
/** Planted in OPERATOR_HOME's `.env`. */
const backupPassphrase = 'row9-backup-passphrase-Tg4Ks7Qe2';
const secrets = [deployNote, paymentsKey, backupPassphrase];
/** A comment in the file: not a value, so never redacted; seeing it means the file was read. */
const marker = 'row9-marker-comment';

describe('row 9: the .env files through the gateway, from a granted member and the owner', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;
  let project: string;
  const projectEnv = `# ${marker}\nDEPLOY_NOTE=${deployNote}\nPAYMENTS_API_KEY="${paymentsKey}"\n`;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-row9-');
    ({ model, telegram } = fakes);
    project = mkdtempSync(join(tmpdir(), 'operator-row9-project-'));
    writeFileSync(join(project, '.env'), projectEnv);
    writeFileSync(join(project, 'README.md'), 'the project\n');
    writeFileSync(join(fakes.home, '.env'), `# ${marker}\nBACKUP_PASSPHRASE_HINT=${backupPassphrase}\n`);
    // A group an admin approved, whose members are granted `shell`.
    writeFileSync(
      join(fakes.home, 'operator.json'),
      JSON.stringify({ allowlists: { telegram: { chats: [group] } }, tools: { grants: [{ tools: ['shell'], chats: [`telegram:${group}`] }] } }),
    );
    gateway = await startTelegramGateway(fakes, [admin], wait, { cwd: project });
  }, 2 * wait);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
    if (project) rmSync(project, { recursive: true, force: true });
  }, wait);

  /** Sends `text` as `from` in `chatId` with the model answering `toolCalls` then `answer`; resolves to the tool results it saw. */
  async function turn(chatId: number, from: { id: number; first_name: string }, toolCalls: { name: string; arguments: Record<string, unknown> }[], answer: string): Promise<string> {
    model.enqueue({ toolCalls }, { text: answer });
    const text = chatId === group ? `@${telegram.bot.username} look at the settings` : 'look at the settings';
    telegram.pushUpdate(telegram.textMessage({ chatId, text, from }));
    await findBotMessage(telegram, gateway, chatId, answer, wait);
    return toolResultsOf(model.requests.at(-1)!);
  }

  const shell = (command: string) => ({ name: 'shell', arguments: { command } });

  it("gives a granted member's commands nothing of either .env, in any encoding, while the commands run", { timeout: 2 * wait }, async () => {
    const results = await turn(
      group,
      member,
      [
        shell('cat .env; echo cat-ran'),
        shell('base64 .env; echo base64-ran'),
        shell('xxd .env; od -c .env; echo xxd-ran'),
        shell(`cat ${join(fakes.home, '.env')} | base64; ls ${fakes.home}; cp .env /tmp/copy; cat /tmp/copy; echo home-ran`),
        shell('rm -f .env; echo REPLACED=1 > .env; cat README.md'),
        { name: 'read_file', arguments: { path: '.env' } },
        { name: 'grep', arguments: { pattern: 'DEPLOY|PAYMENTS|BACKUP', path: '.' } },
      ],
      'Nothing there.',
    );
    for (const ran of ['cat-ran', 'base64-ran', 'xxd-ran', 'home-ran', 'the project']) expect(results).toContain(ran);
    expect(results).toContain('cat: .env: Permission denied');
    expect(results).toContain('is a .env file operator loads its keys from, which no tool may read or change');
    expect(results).not.toContain(marker);
    expectNoSecretIn(everythingSentToModel(model.requests), secrets, 'the model');
    expectNoSecretIn(telegram.messages(group).map((message) => message.text).join('\n'), secrets, 'the group chat');
    // Neither removed nor replaced: the gateway's next start finds its keys where they were.
    expect(readFileSync(join(project, '.env'), 'utf8')).toBe(projectEnv);
  });

  it("gives the owner's own shell nothing of it either", { timeout: 2 * wait }, async () => {
    const results = await turn(admin, { id: admin, first_name: 'Ada' }, [shell('cat .env; base64 .env; xxd .env; echo OWNER-RAN')], 'Checked.');
    expect(results).toContain('OWNER-RAN');
    expect(results).toContain('cat: .env: Permission denied');
    expect(results).not.toContain(marker);
    expectNoSecretIn(everythingSentToModel(model.requests), secrets, 'the model');
    expectNoSecretIn(telegram.messages(admin).map((message) => message.text).join('\n'), secrets, "the owner's chat");
  });
});

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/channels/types.ts';
import { createAccessPolicy } from '../../src/gateway/access/index.ts';
import { loadConfig } from '../../src/gateway/config/index.ts';
import { createStore, type Store } from '../../src/store/index.ts';
import { pairingUsage } from '../../src/cli/pairing-command.ts';
import { runOperator } from '../helpers/operator-process.ts';

function dm(userId: string, name: string): InboundMessage {
  return {
    id: '1',
    dedupeKey: `telegram:update:${userId}`,
    sessionKey: `telegram:dm:${userId}`,
    address: { platform: 'telegram', conversationId: userId },
    scope: 'dm',
    sender: { id: userId, name, username: name.toLowerCase() },
    text: 'hi',
    attachments: [],
    mentioned: true,
    receivedAt: 0,
    raw: null,
  };
}

let home: string;
let store: Store;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), 'operator-pairing-cli-'));
  store = createStore({ driver: 'fs', base: join(home, 'state') });
});
afterEach(async () => {
  await store.close();
  rmSync(home, { recursive: true, force: true });
});

describe('operator pairing', () => {
  it('lists a waiting code, approves it from another process, and the gateway lets the person in', async () => {
    const { config } = loadConfig({ OPERATOR_HOME: home });
    const access = createAccessPolicy(config, store);
    const decision = await access.check(dm('42', 'Ada'));
    const code = /\n\n([A-Z0-9]{8})\n\n/.exec(decision.allowed ? '' : (decision.reply ?? ''))![1]!;

    const listed = await runOperator(['pairing', 'list'], { OPERATOR_HOME: home });
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(
      new RegExp(
        `^Waiting for approval:\\n  ${code}  telegram:42 Ada \\(@ada\\)  asked \\d+ minutes? ago, expires in \\d+ minutes?\\nApproved:\\n  none\\n\\n` +
          "This bot has no admin yet: operator pairing approve CODE --owner makes that person the bot's owner.\\n$",
      ),
    );

    const approved = await runOperator(['pairing', 'approve', code.toLowerCase()], { OPERATOR_HOME: home });
    expect(approved).toEqual({
      code: 0,
      stdout: [
        'Paired telegram:42 Ada (@ada): they can now talk to the bot in direct messages.',
        'The gateway tells them so in their direct messages (within seconds while it runs, else when it next starts).',
        'This bot has no admin yet. To make telegram:42 its owner, add "telegram:42" to admins in operator.json (or OPERATOR_ADMINS) and restart the gateway.',
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(await access.check(dm('42', 'Ada'))).toEqual({ allowed: true, admin: false });

    const after = await runOperator(['pairing', 'list'], { OPERATOR_HOME: home });
    expect(after.stdout).toMatch(new RegExp(String.raw`^Waiting for approval:\n  none\nApproved:\n  telegram:42 Ada \(@ada\)  since \d{4}-\d\d-\d\d \d\d:\d\d UTC\n$`));
  });

  it('explains an unknown code and exits 1', async () => {
    const result = await runOperator(['pairing', 'approve', 'ABCDEFGH'], { OPERATOR_HOME: home });
    expect(result).toEqual({ code: 1, stdout: '', stderr: 'Unknown pairing code ABCDEFGH: check it, or ask the person to write to the bot again for a new one\n' });
  });

  it.each([
    [['pairing', 'approve'], 'approve needs the CODE the person was given'],
    [['pairing', 'deny'], 'deny needs the CODE the person was given'],
    [['pairing'], 'operator pairing needs a subcommand'],
    [['pairing', 'forget', 'telegram:42'], 'unknown subcommand "forget"'],
    [['pairing', 'list', '--all'], 'unknown option --all'],
    [['pairing', 'list', 'extra'], 'list takes no arguments'],
    [['pairing', 'deny', 'ABCDEFGH', '--owner'], '--owner goes with approve only'],
    [['pairing', 'revoke'], 'revoke needs one PLATFORM:ID, e.g. telegram:42 (operator pairing list shows them)'],
    [['pairing', 'revoke', '42'], 'revoke needs one PLATFORM:ID, e.g. telegram:42 (operator pairing list shows them)'],
  ])('exits 2 with the usage for %j', async (args, problem) => {
    const result = await runOperator(args, { OPERATOR_HOME: home });
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(`operator pairing: ${problem}\n\nUsage: ${pairingUsage}\n`);
  });

  it('declines a code: the person is refused and listed as declined', async () => {
    const { config } = loadConfig({ OPERATOR_HOME: home });
    const access = createAccessPolicy(config, store);
    const code = codeOf(await access.check(dm('42', 'Ada')));
    const denied = await runOperator(['pairing', 'deny', code], { OPERATOR_HOME: home });
    expect(denied).toEqual({
      code: 0,
      stdout: `Declined telegram:42 Ada (@ada): code ${code} is dropped. For 24 hours they are told their request was declined; then they may ask for a new code.\n`,
      stderr: '',
    });
    expect(await access.check(dm('42', 'Ada'))).toHaveProperty('reply', expect.stringContaining('an admin of this bot declined your request'));
    const listed = await runOperator(['pairing', 'list'], { OPERATOR_HOME: home });
    expect(listed.stdout).toMatch(/\nDeclined:\n {2}telegram:42 Ada \(@ada\) {2}refused until \d{4}-\d\d-\d\d \d\d:\d\d UTC\n$/);
  });

  it('revokes an approval: the person is a stranger again; an unknown one exits 1', async () => {
    const { config } = loadConfig({ OPERATOR_HOME: home });
    const access = createAccessPolicy(config, store);
    await access.approvePairing(codeOf(await access.check(dm('42', 'Ada'))));
    const revoked = await runOperator(['pairing', 'revoke', 'telegram:42'], { OPERATOR_HOME: home });
    expect(revoked).toEqual({ code: 0, stdout: "Revoked telegram:42 Ada (@ada): their direct messages are treated like a stranger's again.\n", stderr: '' });
    expect((await access.check(dm('42', 'Ada'))).allowed).toBe(false);
    const again = await runOperator(['pairing', 'revoke', 'telegram:42'], { OPERATOR_HOME: home });
    expect(again).toEqual({ code: 1, stdout: '', stderr: 'telegram:42 is not paired (operator pairing list shows who is)\n' });
  });

  it('says when a revoked person is still let in by the configuration', async () => {
    const access = createAccessPolicy(loadConfig({ OPERATOR_HOME: home }).config, store);
    await access.approvePairing(codeOf(await access.check(dm('42', 'Ada'))));
    writeFileSync(join(home, 'operator.json'), JSON.stringify({ allowlists: { telegram: { users: ['42'] } } }));
    const revoked = await runOperator(['pairing', 'revoke', 'telegram:42'], { OPERATOR_HOME: home, OPERATOR_ADMINS: 'telegram:42' });
    expect(revoked.stdout.split('\n')).toEqual([
      "Revoked telegram:42 Ada (@ada): their direct messages are treated like a stranger's again.",
      'Note: telegram:42 is also in admins (operator.json or OPERATOR_ADMINS), which still lets them in: remove them there.',
      'Note: 42 is also in allowlists.telegram.users in operator.json, which still lets them in: remove them there.',
      '',
    ]);
  });
});

describe('operator pairing approve --owner', () => {
  it("makes the first person the bot's owner, an admin, on a bot without admins", async () => {
    const { config } = loadConfig({ OPERATOR_HOME: home });
    const access = createAccessPolicy(config, store);
    const code = codeOf(await access.check(dm('42', 'Ada')));
    const approved = await runOperator(['pairing', 'approve', '--owner', code], { OPERATOR_HOME: home });
    expect(approved).toEqual({
      code: 0,
      stdout: [
        "Paired telegram:42 Ada (@ada) as the bot's owner: they are an admin now (admin commands such as /pair, and every tool in their direct messages).",
        'The gateway tells them so in their direct messages (within seconds while it runs, else when it next starts).',
        '',
      ].join('\n'),
      stderr: '',
    });
    expect(await access.check(dm('42', 'Ada'))).toEqual({ allowed: true, admin: true });
    const listed = await runOperator(['pairing', 'list'], { OPERATOR_HOME: home });
    expect(listed.stdout).toMatch(/\nApproved:\n {2}telegram:42 Ada \(@ada\) {2}since .* UTC {2}\(owner\)\n$/);

    // Once: a second --owner is refused, and the code stays waiting.
    const second = codeOf(await access.check(dm('43', 'Bob')));
    const refused = await runOperator(['pairing', 'approve', second, '--owner'], { OPERATOR_HOME: home });
    expect(refused).toEqual({ code: 1, stdout: '', stderr: 'This bot already has an owner (telegram:42); add more admins to admins in operator.json (or OPERATOR_ADMINS)\n' });
    expect((await access.listPairings()).pending.map((request) => request.code)).toEqual([second]);
  });

  it('is refused when the configuration names admins, and nothing is approved', async () => {
    const { config } = loadConfig({ OPERATOR_HOME: home });
    const access = createAccessPolicy(config, store);
    const code = codeOf(await access.check(dm('42', 'Ada')));
    const refused = await runOperator(['pairing', 'approve', code, '--owner'], { OPERATOR_HOME: home, OPERATOR_ADMINS: 'telegram:1' });
    expect(refused).toEqual({
      code: 1,
      stdout: '',
      stderr: 'This bot already has an admin (telegram:1): --owner is only for a bot without one. Add more admins to admins in operator.json (or OPERATOR_ADMINS).\n',
    });
    expect((await access.check(dm('42', 'Ada'))).allowed).toBe(false);
    // Without --owner, a bot with admins gets no hint about owners.
    const approved = await runOperator(['pairing', 'approve', code], { OPERATOR_HOME: home, OPERATOR_ADMINS: 'telegram:1' });
    expect(approved.stdout).not.toContain('owner');
  });
});

/** The code in a pairing reply. */
function codeOf(decision: { allowed: boolean; reply?: string }): string {
  const code = /\n\n([A-Z0-9]{8})\n\n/.exec(decision.reply ?? '')?.[1];
  if (!code) throw new Error(`no code in ${JSON.stringify(decision)}`);
  return code;
}

/**
 * Groups need an admin's yes, on Telegram, through the real gateway process (long polling against
 * the fake Bot API, the real Anthropic SDK against the fake model), under the default
 * `groupPolicy: approval`: a stranger who adds the bot to their group gets one pairing code there
 * and then silence, and nothing reaches the model; an admin approves it with `/pair` in their
 * direct messages, with `operator pairing approve`, or in the admin console, and the group is
 * told; an admin adding the bot approves the group at once; `operator pairing revoke` takes it back.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminTokenPath } from '../../src/gateway/admin/admin-token.ts';
import { groupNoticeText } from '../../src/gateway/access/index.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { FakeUser } from '../fakes/fake-telegram-updates.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { runOperator } from '../helpers/operator-process.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = { id: 5001, first_name: 'Ada' };
const stranger = { id: 5002, first_name: 'Mallory' };
const member = { id: 5003, first_name: 'Bea' };
const strangerGroup = -1005001;
const adminGroup = -1005002;
const cliGroup = -1005003;
const consoleGroup = -1005004;
const wait = 30_000;
const testTimeout = 120_000;

describe('groups need an admin\'s yes (Telegram, through the gateway)', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-group-approval-telegram-');
    ({ model, telegram } = fakes);
    gateway = await startTelegramGateway(fakes, [admin.id], 60_000);
  }, testTimeout);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const find = (chatId: number, contains: string) => findBotMessage(telegram, gateway, chatId, contains, wait);
  const texts = (chatId: number) => telegram.messages(chatId).map((message) => message.text);
  const mention = (chatId: number, from: FakeUser, text: string) => telegram.pushUpdate(telegram.textMessage({ chatId, from, text: `@${telegram.bot.username} ${text}` }));
  const cli = (...args: string[]) => runOperator(['pairing', ...args], { OPERATOR_HOME: fakes.home, HOME: fakes.home });

  /** The gateway's log lines (JSON: its stderr is not a terminal). */
  const records = () =>
    gateway.output
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);

  /** Waits until the gateway's log shows `count` messages refused in group `chatId` (each said nothing). */
  async function refusedIn(chatId: number, count: number): Promise<void> {
    const one = `"event":"message\\.refused"[^\\n]*"conversation":"telegram:group:${chatId}"`;
    await gateway.output.waitFor(new RegExp(`(?:[\\s\\S]*?${one}){${count}}`), { stream: 'stderr', timeoutMs: wait, label: `${count} refusals in group ${chatId}` });
  }

  /** The code in the bot's one message of group `chatId`. */
  async function codeIn(chatId: number): Promise<string> {
    const message = await find(chatId, '/pair ');
    const code = /\/pair ([A-Z0-9]{8})\b/.exec(message.text)?.[1];
    if (!code) throw new Error(`no code in ${message.text}`);
    return code;
  }

  it("answers a stranger's group once with its code when they add the bot, then says nothing; nothing reaches the model", async () => {
    telegram.pushUpdate(telegram.botMembership({ chatId: strangerGroup, from: stranger, chatTitle: 'Mallory and friends' }));
    const code = await codeIn(strangerGroup);
    expect(texts(strangerGroup)[0]).toContain(`operator pairing approve ${code}`);
    mention(strangerGroup, stranger, 'print your environment');
    mention(strangerGroup, member, 'hello?');
    telegram.pushUpdate(telegram.textMessage({ chatId: strangerGroup, from: stranger, text: '/help' }));
    await refusedIn(strangerGroup, 3);
    expect(texts(strangerGroup)).toHaveLength(1);
    expect(model.requests).toHaveLength(0);
    expect(records().filter((record) => record.event === 'pairing.requested')).toEqual([expect.objectContaining({ code, group: `telegram:group:${strangerGroup}`, user: `telegram:${stranger.id}` })]);
  }, testTimeout);

  it('serves the group once an admin sends /pair with its code in their direct messages, and tells the group', async () => {
    const code = /\/pair ([A-Z0-9]{8})\b/.exec(texts(strangerGroup)[0]!)![1]!;
    telegram.pushUpdate(telegram.textMessage({ chatId: admin.id, from: admin, text: `/pair ${code}` }));
    expect((await find(admin.id, 'Approved the group')).text).toContain(`telegram:group:${strangerGroup} "Mallory and friends"`);
    await find(strangerGroup, groupNoticeText);
    model.enqueue({ text: 'Hello, approved group.' });
    mention(strangerGroup, member, 'now?');
    await find(strangerGroup, 'Hello, approved group.');
    expect(model.requests).toHaveLength(1);
    expect(texts(strangerGroup)).toHaveLength(3);
  }, testTimeout);

  it('approves a group at once when an admin adds the bot: no code, answered', async () => {
    telegram.pushUpdate(telegram.botMembership({ chatId: adminGroup, from: admin, chatTitle: 'Ada team' }));
    model.enqueue({ text: 'At your service.' });
    mention(adminGroup, member, 'hi there');
    await find(adminGroup, 'At your service.');
    expect(texts(adminGroup)).toEqual(['At your service.']);
  }, testTimeout);

  it('gives a code at the first mention where nobody added the bot; operator pairing lists, approves and revokes the group', async () => {
    mention(cliGroup, member, 'anyone here?');
    const code = await codeIn(cliGroup);
    const requests = model.requests.length;
    const listed = await cli('list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`Groups waiting for approval:\n  ${code}  telegram:group:${cliGroup} "Chat ${cliGroup}", asked by telegram:${member.id} Bea`);
    expect(listed.stdout).toContain(`Groups approved:\n  telegram:group:${strangerGroup} "Mallory and friends"`);
    expect(listed.stdout).toContain(`telegram:group:${adminGroup} "Ada team"`);
    expect(listed.stdout).toContain(`(added by telegram:${admin.id})`);

    const approved = await cli('approve', code);
    expect(approved.stdout).toContain(`Approved telegram:group:${cliGroup} "Chat ${cliGroup}": the bot answers there now.`);
    await find(cliGroup, groupNoticeText);
    model.enqueue({ text: 'Answered after the command line.' });
    mention(cliGroup, member, 'and now?');
    await find(cliGroup, 'Answered after the command line.');

    const revoked = await cli('revoke', `telegram:group:${cliGroup}`);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`Revoked telegram:group:${cliGroup}`);
    const before = texts(cliGroup).length;
    mention(cliGroup, member, 'still there?');
    await telegram.waitFor((fake) => fake.messages(cliGroup).length > before, wait);
    const again = /\/pair ([A-Z0-9]{8})\b/.exec(texts(cliGroup).at(-1)!)?.[1];
    expect(again).toMatch(/^[A-Z0-9]{8}$/);
    expect(again).not.toBe(code);
    expect(model.requests).toHaveLength(requests + 1);
    // A group that is not approved cannot be revoked; the command says so.
    const unknown = await cli('revoke', 'telegram:group:-1009999');
    expect(unknown).toMatchObject({ code: 1, stderr: 'telegram:group:-1009999 is not an approved group (operator pairing list shows them)\n' });
  }, testTimeout * 2);

  it('lists the waiting group in the admin console, which approves it', async () => {
    mention(consoleGroup, stranger, 'hi');
    const code = await codeIn(consoleGroup);
    const origin = await gateway.ready(wait);
    const bearer = { authorization: `Bearer ${readFileSync(adminTokenPath(fakes.home), 'utf8').trim()}` };
    const listing = (await (await fetch(`${origin}/admin/api/pairing`, { headers: bearer })).json()) as { groups: { pending: { code: string; group: { id: string } }[] } };
    // It waits beside the new code the revoked group got above.
    expect(listing.groups.pending.find((request) => request.code === code)).toMatchObject({ group: { platform: 'telegram', kind: 'group', id: String(consoleGroup) } });
    const change = await fetch(`${origin}/admin/api/pairing`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: JSON.stringify({ action: 'approve', code }) });
    expect(await change.json()).toEqual({ ok: true, text: `Approved telegram:group:${consoleGroup} "Chat ${consoleGroup}": the bot answers there now (the group is told).` });
    await find(consoleGroup, groupNoticeText);
    model.enqueue({ text: 'Answered after the console.' });
    mention(consoleGroup, stranger, 'and now?');
    await find(consoleGroup, 'Answered after the console.');
    const revoke = await fetch(`${origin}/admin/api/pairing`, { method: 'POST', headers: { ...bearer, 'content-type': 'application/json' }, body: JSON.stringify({ action: 'revoke-group', group: `telegram:group:${consoleGroup}` }) });
    expect(await revoke.json()).toEqual({ ok: true, text: `Revoked telegram:group:${consoleGroup} "Chat ${consoleGroup}": the bot no longer answers there.` });
  }, testTimeout);
});

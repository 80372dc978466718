/**
 * `/undo` and `/diff` through the real gateway process, the fake model server and the fake Bot
 * API: the owner sees the agent's changes as a diff and takes back the last turn's, after a
 * restart too; a group member without the write tools may neither undo nor see; one granted
 * `write` and `read` may; a stranger never gets an answer beyond pairing; a paired person who is
 * not an admin may neither, and is offered no file or web tools; a long diff arrives as a file.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startGateway, type GatewayProcess } from '../helpers/gateway-process.ts';
import { telegramChat } from '../helpers/telegram-chat.ts';
import { startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import { approveGroups, telegramGroup } from '../helpers/approved-groups.ts';

const admin = 1001;
const member = { id: 2002, first_name: 'Bea' };
const writer = { id: 3003, first_name: 'Cy' };
const group = -100888;
const wait = 15_000;

describe('undo and diff through the gateway', () => {
  let fakes: TelegramGatewayFakes;
  let gateway: GatewayProcess;
  let chat: ReturnType<typeof telegramChat>;
  let workspace: string;

  const start = async () => {
    // The group(s) an admin approved (groupPolicy approval is the default; this test is about something else).
    await approveGroups(fakes.home, [telegramGroup(group)]);
    gateway = await startGateway({ home: fakes.home, env: fakes.env([admin]), cwd: workspace }, wait);
    chat = telegramChat({ fakes, gateway, admin, group, waitMs: wait });
  };

  beforeAll(async () => {
    // Kept for the whole file (a test's temp folder would be gone after the first test).
    workspace = mkdtempSync(join(tmpdir(), 'operator-undo-e2e-workspace-'));
    fakes = await startTelegramGatewayFakes('operator-undo-e2e-');
    writeFileSync(
      join(fakes.home, 'operator.json'),
      JSON.stringify({ groups: { [`telegram:${group}`]: { requireMention: false } }, tools: { grants: [{ tools: ['read', 'write'], people: [`telegram:${writer.id}`] }] } }),
    );
    await start();
  });
  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
    rmSync(workspace, { recursive: true, force: true });
  });

  const file = (name: string) => join(workspace, name);
  const lastText = async (chatId: number, before: number) => (await chat.messagesAfter(chatId, before, 1))[0]!.text;

  it('shows the owner the changes as a diff and undoes the last turn, then the one before, after a restart too', async () => {
    const { model, telegram } = fakes;
    writeFileSync(file('notes.md'), 'first\n');
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'plan.md', content: 'step one\n' } }] }, { text: 'Wrote the plan.' });
    let before = telegram.messages(admin).length;
    chat.dm('write a plan');
    await chat.messagesAfter(admin, before, 1);
    model.enqueue(
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'notes.md', old_string: 'first', new_string: 'second' } }] },
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'plan.md', old_string: 'one', new_string: 'two' } }] },
      { text: 'Edited both.' },
    );
    before = telegram.messages(admin).length;
    chat.dm('edit them');
    await chat.messagesAfter(admin, before, 1);
    expect(readFileSync(file('notes.md'), 'utf8')).toBe('second\n');

    before = telegram.messages(admin).length;
    chat.dm('/diff');
    const diff = await lastText(admin, before);
    expect(diff).toContain('2 files changed');
    expect(diff).toContain('-first');
    expect(diff).toContain('+second');
    expect(diff).toContain('+step two');

    before = telegram.messages(admin).length;
    chat.dm('/undo turn');
    expect(await lastText(admin, before)).toBe(['Undid edit_file on plan.md: restored what it was before.', 'Undid edit_file on notes.md: restored what it was before.'].join('\n'));
    expect(readFileSync(file('notes.md'), 'utf8')).toBe('first\n');
    expect(readFileSync(file('plan.md'), 'utf8')).toBe('step one\n');

    await gateway.stop();
    await start();
    before = telegram.messages(admin).length;
    chat.dm('/undo');
    expect(await lastText(admin, before)).toBe('Undid write_file on plan.md: deleted it (the change created it).');
    expect(existsSync(file('plan.md'))).toBe(false);
  });

  it('a group member without the write tools may neither undo nor see the diff; one granted them may', async () => {
    const { model, telegram } = fakes;
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'team.md', content: 'agenda\n' } }] }, { text: 'Done.' });
    let before = telegram.messages(group).length;
    chat.inGroup('write the agenda', writer);
    await chat.messagesAfter(group, before, 1);
    expect(readFileSync(file('team.md'), 'utf8')).toBe('agenda\n');

    before = telegram.messages(group).length;
    chat.inGroup('/undo', member);
    expect(await lastText(group, before)).toBe("You cannot undo file changes here: that needs the write tools, which are the owner's unless tools.grants in operator.json gives them to you.");
    before = telegram.messages(group).length;
    chat.inGroup('/diff', member);
    expect(await lastText(group, before)).toContain('You cannot see file changes here: that needs the read tools');
    expect(readFileSync(file('team.md'), 'utf8')).toBe('agenda\n');

    before = telegram.messages(group).length;
    chat.inGroup('/diff', writer);
    expect(await lastText(group, before)).toContain('+agenda');
    before = telegram.messages(group).length;
    chat.inGroup('/undo', writer);
    expect(await lastText(group, before)).toBe('Undid write_file on team.md: deleted it (the change created it).');
    expect(existsSync(file('team.md'))).toBe(false);
  });

  it('sends a long diff as a file', async () => {
    const { model, telegram } = fakes;
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'long.txt', content: 'a line of the report\n'.repeat(300) } }] }, { text: 'Written.' });
    let before = telegram.messages(admin).length;
    chat.dm('write the long report');
    await chat.messagesAfter(admin, before, 1);
    before = telegram.messages(admin).length;
    chat.dm('/diff');
    const [text, attached] = await chat.messagesAfter(admin, before, 2);
    expect(text!.text).toMatch(/^1 file changed; the diff \(\d+ characters\) is attached as changes-.*\.diff\.$/);
    expect(attached!.kind).toBe('document');
    expect(Buffer.from(attached!.file!.bytes).toString('utf8')).toContain('+a line of the report');
  });

  it('a stranger in a direct message gets the pairing answer, never an undo', async () => {
    const { telegram } = fakes;
    writeFileSync(file('safe.md'), 'safe\n');
    const stranger = 4004;
    const before = telegram.messages(stranger).length;
    telegram.pushUpdate(telegram.textMessage({ chatId: stranger, text: '/undo', from: { id: stranger, first_name: 'Eve' } }));
    const [reply] = await chat.messagesAfter(stranger, before, 1);
    expect(reply!.text).toMatch(/pair|code/i);
    expect(readFileSync(file('safe.md'), 'utf8')).toBe('safe\n');
  });

  it('a paired person who is not an admin, in their own direct messages: no undo, no diff, no file or web tools', async () => {
    const { model, telegram } = fakes;
    const person = { id: 6006, first_name: 'Pat' };
    let before = telegram.messages(person.id).length;
    telegram.pushUpdate(telegram.textMessage({ chatId: person.id, text: 'hello', from: person }));
    const notice = (await chat.messagesAfter(person.id, before, 1))[0]!.text;
    const code = /\b([A-HJ-NP-Z2-9]{8})\b/.exec(notice)?.[1];
    expect(code).toBeDefined();
    const adminBefore = telegram.messages(admin).length;
    chat.dm(`/pair ${code}`);
    expect(await lastText(admin, adminBefore)).toMatch(/^Paired: telegram:6006/);

    // The owner's change stands; Pat may neither take it back nor see it.
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'owner.md', content: 'mine\n' } }] }, { text: 'Written.' });
    const ownerBefore = telegram.messages(admin).length;
    chat.dm('write owner.md');
    await chat.messagesAfter(admin, ownerBefore, 1);
    before = telegram.messages(person.id).length;
    telegram.pushUpdate(telegram.textMessage({ chatId: person.id, text: '/undo', from: person }));
    expect(await lastText(person.id, before)).toContain('You cannot undo file changes here: that needs the write tools');
    before = telegram.messages(person.id).length;
    telegram.pushUpdate(telegram.textMessage({ chatId: person.id, text: '/diff', from: person }));
    expect(await lastText(person.id, before)).toContain('You cannot see file changes here: that needs the read tools');
    expect(readFileSync(file('owner.md'), 'utf8')).toBe('mine\n');

    model.enqueue({ text: 'Hello Pat.' });
    before = telegram.messages(person.id).length;
    telegram.pushUpdate(telegram.textMessage({ chatId: person.id, text: 'what can you do?', from: person }));
    await chat.messagesAfter(person.id, before, 1);
    const offered = chat.lastToolNames();
    for (const tool of ['write_file', 'edit_file', 'apply_patch', 'shell', 'web_fetch', 'browser', 'desktop']) expect(offered).not.toContain(tool);
  });
});

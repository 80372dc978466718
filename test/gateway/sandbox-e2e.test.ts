/**
 * Commands run in the sandbox, tried as an attacker would through the real gateway process
 * (Telegram long polling): a group granted `shell` in operator.json, whose member has the model
 * hunt for secrets. The gateway's working directory is its OPERATOR_HOME, so the store, the
 * control file and every other conversation's folder lie inside the workspace it was granted.
 * Whatever encoding the command chooses, no secret, no other conversation and no control token
 * comes back; the command itself runs. The admin's own shell is sandboxed too.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keySegment } from '../../src/gateway/dedupe.ts';
import type { FakeModelServer, RecordedRequest } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import { approveGroups, telegramGroup } from '../helpers/approved-groups.ts';

const admin = 1001;
const member = { id: 3003, first_name: 'Mallory' };
const group = -100888;
const wait = 15_000;

/** Every tool result the request carries, as text. */
function toolResults(request: RecordedRequest): string {
  const parts = (request.body.messages as { content: unknown }[]).flatMap((message) => (Array.isArray(message.content) ? message.content : []));
  return JSON.stringify(parts.filter((part: { type?: string }) => part.type === 'tool_result'));
}

/** The value in the forms a command could print it: plain, base64, hex. */
function encodings(value: string): string[] {
  return [value, Buffer.from(value).toString('base64'), Buffer.from(value).toString('hex')];
}

describe('commands in the sandbox through the gateway', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;
  let home: string;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-sandbox-e2e-');
    ({ model, telegram, home } = fakes);
    writeFileSync(join(home, 'operator.json'), JSON.stringify({ tools: { grants: [{ tools: ['shell'], chats: [`telegram:${group}`] }] } }));
    // Another conversation's document, in its own folder.
    const other = join(home, 'profiles', 'default', 'temp', keySegment(`telegram:dm:${admin}`));
    mkdirSync(other, { recursive: true });
    writeFileSync(join(other, 'salaries.csv'), 'name,salary\nAda,SALARY-9911\n');
    // The group(s) an admin approved (groupPolicy approval is the default; this test is about something else).
    await approveGroups(fakes.home, [telegramGroup(group)]);
    gateway = await startTelegramGateway(fakes, [admin], undefined, { cwd: home, env: { GITHUB_TOKEN: 'ghp_sandboxE2eNeverShown0123456789' } });
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const find = (chatId: number, contains: string) => findBotMessage(telegram, gateway, chatId, contains, wait);

  /** Runs `commands` through the member's shell in the group; resolves to the tool results the model saw. */
  async function runInGroup(commands: string[], answer: string): Promise<string> {
    model.enqueue({ toolCalls: commands.map((command) => ({ name: 'shell', arguments: { command } })) }, { text: answer });
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: `@${telegram.bot.username} run these`, from: member }));
    await find(group, answer);
    return toolResults(model.requests.at(-1)!);
  }

  it('runs a granted member\'s command, in the sandbox', async () => {
    const results = await runInGroup(['echo RCE-$((6*7)) $(id -u)', 'ls /proc | grep -E "^[0-9]+$" | wc -l'], 'Ran it.');
    expect(results).toContain('RCE-42');
    expect(gateway.output.all()).toContain('bubblewrap');
  });

  it("gives the command no secret, no control token, no store and no other conversation, in any encoding", async () => {
    model.enqueue({ text: 'Noted.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: admin, text: 'the launch code is PELICAN-77', from: { id: admin, first_name: 'Ada' } }));
    await find(admin, 'Noted.');
    const control = JSON.parse(readFileSync(join(home, 'gateway.json'), 'utf8')) as { token: string };
    const results = await runInGroup(
      [
        "cat /proc/1/environ | tr '\\0' '\\n'",
        'cat /proc/$PPID/environ | base64 -w0',
        'env | base64 -w0; env | xxd -p 2>/dev/null | tr -d "\\n"; env',
        'cat /proc/*/environ 2>/dev/null | base64 -w0',
        `cat ${join(home, 'gateway.json')}; ls -la ${home} ${join(home, 'state')}`,
        `grep -r PELICAN ${home} -s -l 2>/dev/null | head -5; grep -rs PELICAN /tmp /usr/local 2>/dev/null | head -3`,
        `cat ${join(home, 'profiles', 'default', 'temp', keySegment(`telegram:dm:${admin}`), 'salaries.csv')}`,
        `find ${home} -maxdepth 3 2>&1 | head -50`,
      ],
      'Looked around.',
    );
    const secrets = [telegram.token, 'ghp_sandboxE2eNeverShown0123456789', fakes.env([admin]).ANTHROPIC_API_KEY!, control.token, 'PELICAN-77', 'SALARY-9911'];
    for (const secret of secrets) for (const form of encodings(secret)) expect(results, `a form of a secret came back`).not.toContain(form);
    const chat = telegram.messages(group).map((message) => message.text).join('\n');
    for (const secret of secrets) expect(chat).not.toContain(secret);
  });

  it("sandboxes the admin's own shell too: the gateway's environment is not the command's", async () => {
    model.enqueue({ toolCalls: [{ name: 'shell', arguments: { command: 'cat /proc/$PPID/environ /proc/1/environ | base64 -w0; echo; echo OWNER-RAN' } }] }, { text: 'Done here.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: admin, text: 'show me the environment', from: { id: admin, first_name: 'Ada' } }));
    await find(admin, 'Done here.');
    const results = toolResults(model.requests.at(-1)!);
    expect(results).toContain('OWNER-RAN');
    for (const form of encodings(telegram.token)) expect(results).not.toContain(form);
  });
});

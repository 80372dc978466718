/**
 * Issue 30, row 10: `state/`, `profiles/` and transcripts were created 0755/0644, so every local
 * user of the machine read every conversation. Through the real gateway process, from that seat
 * (another user of the machine, who reads whatever modes allow):
 *
 * - after the gateway starts and conversations happen (the owner's, which writes the profile's
 *   memory, and a group member's, which gets a folder of its own), no file or folder under
 *   OPERATOR_HOME has a group or other permission bit;
 * - an existing home an earlier version left 0755/0644 is made private at start, which the
 *   start-up output says once; a symlink in it is not followed.
 *
 * Mutation checks (run by hand, results here): with the private modes set back to 0o777/0o666
 * (what a 022 umask turns into 0755/0644, as before), the first test listed 29 open entries: the
 * store's folders and files (sessions, journals, usage), `profiles/`, `MEMORY.md`, both
 * conversations' folders and their `downloads`; without the start-up fix, the second test failed
 * on the missing start-up line, with the home as it was planted.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { startGateway } from '../helpers/gateway-process.ts';
import { countEntries, openEntries } from '../helpers/open-entries.ts';
import { findBotMessage, startTelegramGateway, startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

const admin = 1001;
const member = { id: 3003, first_name: 'Mallory' };
const group = -100910;
/** How long to wait for an event; generous, since the machine may be busy with other suites. */
const wait = 60_000;

describe('row 10: what the gateway makes under OPERATOR_HOME is the owner\'s alone', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-row10-');
    ({ model, telegram } = fakes);
    // Every group is served, so the member's message starts a conversation of its own.
    gateway = await startTelegramGateway(fakes, [admin], wait, { env: { OPERATOR_GROUP_POLICY: 'open' } });
  }, 2 * wait);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  }, wait);

  it('leaves no file or folder readable by group or others after conversations', { timeout: 2 * wait }, async () => {
    model.enqueue({ toolCalls: [{ name: 'memory', arguments: { action: 'add', target: 'memory', content: 'The launch is on Friday.' } }] }, { text: 'Saved it.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: admin, text: 'remember: the launch is on Friday', from: { id: admin, first_name: 'Ada' } }));
    await findBotMessage(telegram, gateway, admin, 'Saved it.', wait);
    // The member's turn lists its folder: a conversation's own folder is made by its first tool call.
    model.enqueue({ toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }] }, { text: 'Hello, group.' });
    telegram.pushUpdate(telegram.textMessage({ chatId: group, text: `@${telegram.bot.username} hello`, from: member }));
    await findBotMessage(telegram, gateway, group, 'Hello, group.', wait);
    // What the conversations made: the store, the profile's memory, the member's own folder.
    for (const made of ['state', join('profiles', 'default', 'MEMORY.md'), join('profiles', 'default', 'temp')]) expect(statSync(join(fakes.home, made))).toBeTruthy();
    expect(countEntries(join(fakes.home, 'state'))).toBeGreaterThan(3);
    expect(openEntries(fakes.home)).toEqual([]);
    expect(gateway.output.all()).not.toContain('made OPERATOR_HOME private');
  });
});

describe('row 10: an existing home an earlier version left open', () => {
  let base: string;
  let home: string;
  let userHome: string;

  beforeAll(() => {
    base = mkdtempSync(join(tmpdir(), 'operator-row10-old-'));
    home = join(base, 'operator-home');
    userHome = createTempHome('operator-row10-user-');
    for (const folder of [join(home, 'state', 'sessions', 'telegram-dm-1001'), join(home, 'profiles', 'default', 'temp', 'telegram-group-1')]) mkdirSync(folder, { recursive: true });
    writeFileSync(join(home, 'state', 'sessions', 'telegram-dm-1001', 'log'), '{"text":"the launch code is PELICAN-77"}\n');
    writeFileSync(join(home, 'profiles', 'default', 'MEMORY.md'), 'The launch is on Friday.\n');
    writeFileSync(join(home, 'web-token'), 'an-old-web-token-0123456789abcdef\n');
    writeFileSync(join(base, 'shared.txt'), 'not in the home\n');
    symlinkSync(join(base, 'shared.txt'), join(home, 'profiles', 'shared-link'));
    const open = (path: string, mode: number) => chmodSync(path, mode);
    for (const folder of ['', 'state', 'state/sessions', 'state/sessions/telegram-dm-1001', 'profiles', 'profiles/default', 'profiles/default/temp', 'profiles/default/temp/telegram-group-1']) {
      open(join(home, folder), 0o755);
    }
    for (const file of ['state/sessions/telegram-dm-1001/log', 'profiles/default/MEMORY.md', 'web-token']) open(join(home, file), 0o644);
    open(join(base, 'shared.txt'), 0o644);
  });

  afterAll(() => {
    rmSync(base, { recursive: true, force: true });
    removeTempHome(userHome);
  });

  it('is made private at start, said once, without following a symlink out of it', { timeout: 2 * wait }, async () => {
    expect(openEntries(home)).toHaveLength(11);
    // HOME is the user's own folder, apart from OPERATOR_HOME, as on a person's machine.
    const first = await startGateway({ home, env: { HOME: userHome } }, wait);
    try {
      expect(first.output.all()).toContain(`made OPERATOR_HOME private: 11 entries were readable by others (${home})`);
      expect(openEntries(home)).toEqual([]);
      expect((statSync(join(base, 'shared.txt')).mode & 0o777).toString(8)).toBe('644');
    } finally {
      expect(await first.stop()).toBe(0);
    }
    const second = await startGateway({ home, env: { HOME: userHome } }, wait);
    try {
      expect(second.output.all()).not.toContain('made OPERATOR_HOME private');
      expect(openEntries(home)).toEqual([]);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });
});

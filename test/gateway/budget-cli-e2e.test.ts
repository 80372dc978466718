/**
 * `operator budget`, end to end: the real command line beside the real gateway process (the fake
 * Bot API, the real Anthropic SDK against the fake model, which reports each call's tokens). While
 * the gateway runs, the command goes through its control route: `status` shows what it spent
 * (counted without a gateway cap too) and the caps in force; `pause` stops a turn under way at its
 * next model call, and `resume` answers its message once. A control file with a wrong token is
 * refused, without the token in the output. While the gateway is down, the command reads and
 * changes the store, and the gateway takes the pause, and later the resume, up when it starts.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { startGateway, type GatewayProcess } from '../helpers/gateway-process.ts';
import { runOperator } from '../helpers/operator-process.ts';
import { findBotMessage, findFinalBotMessage, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import { createTempHome, removeTempHome } from '../helpers/temp-home.ts';

const owner = { id: 8201, first_name: 'Ada' };
const wait = 30_000;
/** 100,000 input and 1,000 output tokens: $0.30 + $0.015 at claude-sonnet-4-6's prices. */
const usage = { input: 100_000, output: 1_000 };
const pausedReply = 'Model calls are paused by an admin (/budget pause): this message is answered once they resume.';

describe('operator budget beside the gateway', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess | undefined;

  const start = async () => {
    gateway = await startGateway({ home: fakes.home, env: fakes.env([owner.id]) }, wait);
  };
  const budget = (...args: string[]) => runOperator(['budget', ...args], { HOME: fakes.home, OPERATOR_HOME: fakes.home });
  const say = (text: string) => telegram.pushUpdate(telegram.textMessage({ chatId: owner.id, text, from: owner }));
  const answered = (text: string) => telegram.messages(owner.id).filter((message) => message.text === text).length;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-budget-cli-');
    ({ model, telegram } = fakes);
    // No gateway cap: what it spends is counted all the same. A profile with a cap of its own.
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ budgets: { person: { day: 2 }, job: { run: 0.5 } }, profileSettings: { team: { budgets: { conversation: { day: 20 } } } } }));
    await start();
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it("shows through the running gateway what it spent today and this month, and the caps in force", async () => {
    model.enqueue({ text: 'Hello Ada.', usage });
    say('hello');
    await findFinalBotMessage(telegram, gateway!, owner.id, 'Hello Ada.', wait);
    const status = await budget('status');
    expect(status).toMatchObject({ code: 0, stderr: '' });
    expect(status.stdout).toBe(
      [
        'Model calls go on.',
        `The gateway spent $0.3150 today (${today()}) and $0.3150 this month (${today().slice(0, 7)}), UTC.`,
        'Caps in force:',
        '- each group conversation: $5.00 a day (default)',
        '- each person who is not an admin: $2.00 a day',
        '- each run of a scheduled job: $0.5000 a run',
        '- each conversation of profile team: $20.00 a day',
        'No cap: the gateway, direct conversations, admins as persons, pipeline runs.',
        '',
      ].join('\n'),
    );
    const json = JSON.parse((await budget('--json')).stdout) as { paused: boolean; spent: { day: number } };
    expect(json.paused).toBe(false);
    expect(json.spent.day).toBeCloseTo(0.315);
  });

  it('pauses a turn under way at its next model call, and answers its message once after the resume', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    // The turn's first call asks for a tool, and is held until the pause is in.
    model.enqueue({ toolCalls: [{ name: 'list_dir', arguments: { path: '.' } }], usage, holdUntil: held });
    const before = model.requests.length;
    say('list the folder');
    await model.waitForRequests(before + 1, wait);
    const paused = await budget('pause');
    expect(paused).toMatchObject({ code: 0, stderr: '' });
    expect(paused.stdout).toBe('Paused all model calls: running turns stop at their next call, and messages wait until they resume (operator budget resume, or /budget resume in a chat).\n');
    release();
    await findBotMessage(telegram, gateway!, owner.id, pausedReply, wait);
    // The tool ran; the call after it was never made.
    expect(model.requests).toHaveLength(before + 1);
    expect((await budget('status')).stdout).toMatch(/^Model calls are paused: messages wait until they resume/);
    expect((await budget('pause')).stdout).toBe('Model calls were paused already.\n');

    model.setDefault({ text: 'The folder, listed after the resume.', usage });
    const resumed = await budget('resume');
    expect(resumed).toMatchObject({ code: 0, stderr: '', stdout: 'Model calls go on; the messages that waited are answered now.\n' });
    await findFinalBotMessage(telegram, gateway!, owner.id, 'The folder, listed after the resume.', wait);
    // Once: a message that comes now is answered after it, and nothing was answered twice.
    model.enqueue({ text: 'And the next one.' });
    say('and now?');
    await findFinalBotMessage(telegram, gateway!, owner.id, 'And the next one.', wait);
    expect(answered('The folder, listed after the resume.')).toBe(1);
  });

  it('refuses a control file whose token is wrong, never printing the token, and changes nothing', async () => {
    const path = join(fakes.home, 'gateway.json');
    const original = readFileSync(path, 'utf8');
    const file = JSON.parse(original) as { token: string };
    const wrong = 'y'.repeat(43);
    writeFileSync(path, JSON.stringify({ ...file, token: wrong }));
    try {
      const refused = await budget('pause');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/refused the request \(HTTP 401\): unauthorized/);
      expect(`${refused.stdout}${refused.stderr}`).not.toContain(wrong);
      expect(`${refused.stdout}${refused.stderr}`).not.toContain(file.token);
    } finally {
      writeFileSync(path, original, { mode: 0o600 });
    }
    expect((await budget('status')).stdout).toMatch(/^Model calls go on\./);
  });

  it('reads and changes the store while the gateway is down; the gateway takes the pause and the resume up when it starts', async () => {
    await gateway!.stop();
    gateway = undefined;
    const status = await budget('status');
    expect(status).toMatchObject({ code: 0, stderr: '' });
    // Every call so far: hello, the tool call, the answer after the resume, the next one ($0.315 each but the last, billed the fake's default).
    expect(status.stdout).toMatch(new RegExp(`^Model calls go on\\.\\nThe gateway spent \\$0\\.9\\d+ today \\(${today()}\\)`));
    const paused = await budget('pause');
    expect(paused).toMatchObject({ code: 0, stdout: 'Paused all model calls: when the gateway starts, messages wait until they resume (operator budget resume, or /budget resume in a chat).\n' });
    expect(paused.stderr).toBe('No gateway is running: the store was changed directly, and the gateway takes it up when it starts.\n');

    await start();
    const before = model.requests.length;
    say('are you there?');
    await findBotMessage(telegram, gateway!, owner.id, pausedReply, wait);
    expect(model.requests).toHaveLength(before);

    await gateway!.stop();
    gateway = undefined;
    const resumed = await budget('resume');
    expect(resumed).toMatchObject({ code: 0, stdout: 'Model calls go on; the messages that waited are answered when the gateway starts.\n' });
    model.setDefault({ text: 'Here, after the restart.' });
    await start();
    await findFinalBotMessage(telegram, gateway!, owner.id, 'Here, after the restart.', wait);
    expect(answered('Here, after the restart.')).toBe(1);
  });

  it('refuses bad arguments with the usage (exit 2), and a memory store with nothing to work on (exit 1)', async () => {
    const unknown = await budget('stop');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^operator budget: unknown subcommand "stop"\n\nUsage: operator budget/);
    expect((await budget('pause', '--json')).stderr).toMatch(/--json goes with status only/);
    expect((await budget('resume', 'now')).stderr).toMatch(/resume takes no arguments/);
    const help = await runOperator(['--help'], { HOME: fakes.home, OPERATOR_HOME: fakes.home });
    expect(help.stdout).toMatch(/\n {2}budget +Pause or resume every model call/);
    const elsewhere = createTempHome('operator-budget-cli-memory-');
    try {
      const memory = await runOperator(['budget', 'pause'], { HOME: elsewhere, OPERATOR_HOME: elsewhere, OPERATOR_STORE: 'memory' });
      expect(memory).toMatchObject({ code: 1, stdout: '' });
      expect(memory.stderr).toMatch(/OPERATOR_STORE=memory keeps nothing between processes/);
    } finally {
      removeTempHome(elsewhere);
    }
  });
});

/** Today's UTC date, `2026-11-30`. */
function today(): string {
  return new Date().toISOString().slice(0, 10);
}

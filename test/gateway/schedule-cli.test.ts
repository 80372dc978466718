/**
 * `operator schedule`, end to end: the real command line beside the real gateway process, the
 * fake model server and the fake Bot API server. While the gateway runs, the command goes through
 * it (a job added there fires in its chat, and `/schedule` in the chat sees what the command
 * changed); while it is down, the command changes the store and the gateway takes the jobs up
 * when it starts. A control file left by a dead gateway is ignored; one with a wrong token is
 * refused, without the token in the message.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { startGateway } from '../helpers/gateway-process.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { runOperator } from '../helpers/operator-process.ts';
import { startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const chat = 1001;
const wait = 15_000;

describe('operator schedule beside the gateway', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess | undefined;
  const controlFile = () => join(fakes.home, 'gateway.json');

  const start = async () => {
    gateway = await startGateway({ home: fakes.home, env: fakes.env([chat]) }, wait);
  };
  const schedule = (...args: string[]) => runOperator(['schedule', ...args], { HOME: fakes.home, OPERATOR_HOME: fakes.home });
  const say = (text: string) => telegram.pushUpdate(telegram.textMessage({ chatId: chat, text, from: { id: chat, first_name: 'Ada' } }));
  const find = (predicate: (text: string) => boolean) =>
    telegram.waitFor((fake) => fake.messages(chat).find((message) => predicate(message.text)), wait).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${gateway?.output.all()}`);
    });
  const roundTrip = async (answer: string) => {
    model.enqueue({ text: answer });
    say(`say ${answer}`);
    await find((text) => text === answer);
  };
  /** The answer to a chat command. */
  const command = async (text: string, expected: RegExp) => {
    const before = telegram.messages(chat).length;
    say(text);
    return (await telegram.waitFor((fake) => fake.messages(chat).slice(before).find((message) => expected.test(message.text)), wait)).text;
  };
  const jobId = (stdout: string) => /^Scheduled job (?:"[^"]*" \()?([0-9a-z]{8})/.exec(stdout)?.[1] ?? '';

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-schedule-cli-');
    ({ model, telegram } = fakes);
    await start();
    // The gateway knows a conversation once it has talked there.
    await roundTrip('Hello Ada.');
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  it('adds a job through the running gateway, which fires it in its chat as set by the command line', async () => {
    const mode = statSync(controlFile()).mode & 0o777;
    expect(mode).toBe(0o600);
    model.enqueue({ text: 'Ping from the schedule.' });
    const added = await schedule('add', '--to', `telegram:${chat}`, '--in', '1s', '--name', 'ping', 'Say ping.');
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^Scheduled job "ping" \([0-9a-z]{8}\) in telegram:1001 with profile default: next run in 1 second \(.*\), \d{4}-\d\d-\d\dT/);
    // What it is expected to cost (claude-sonnet-4-6's 32,000 output tokens for its first call), and the job caps.
    expect(added.stdout).toMatch(/\. Estimated cost: \$0\.48\d\d a run \(one model call's worst case, until it has run\), at most one run a day\. No job spending cap is set \(budgets\.job\)\.\n$/);
    await find((text) => text === 'Ping from the schedule.');
    const fired = JSON.stringify(model.requests.at(-1)!.body.messages.at(-1));
    expect(fired).toContain('scheduled follow-up, not typed by a person');
    expect(fired).toContain('the operator command line');
    expect(fired).toContain('Say ping.');

    const id = jobId(added.stdout);
    const listed = await schedule('list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toContain(`${id}  "ping"  done`);
    expect(listed.stdout).toMatch(/last {6}\S+ ok, answer delivered/);
    // The fake model bills 10 input and 5 output tokens a call: $0.000105.
    expect(listed.stdout).toContain('  spend     spent today $0.0001, $0.0001 a run on average (1 run)');
    const json = JSON.parse((await schedule('list', '--json')).stdout) as { id: string; lastStatus: string; lastDelivery: { status: string } }[];
    expect(json.find((job) => job.id === id)).toMatchObject({ lastStatus: 'ok', lastDelivery: { status: 'delivered' } });
  });

  it('pauses, resumes and removes a job through the gateway, which sees each change at once', async () => {
    const added = await schedule('add', '--to', `telegram:${chat}`, '--every', '1d', 'Post the summary.');
    const id = jobId(added.stdout);
    expect(id).not.toBe('');
    expect(await command('/schedule list', new RegExp(id))).toMatch(new RegExp(`${id}; active; next in 1 day`));

    expect((await schedule('pause', id.toUpperCase())).stdout).toBe(`Paused job ${id}.\n`);
    expect(await command('/schedule list', new RegExp(id))).toMatch(new RegExp(`${id}; paused \\(paused by the operator command line\\)`));
    expect((await schedule('resume', id)).stdout).toMatch(new RegExp(`^Resumed job ${id}\\. Next run in 1 day`));
    expect((await schedule('rm', id)).stdout).toBe(`Removed job ${id}.\n`);
    expect(await command('/schedule list', /ping|No scheduled jobs/)).not.toContain(id);
  });

  it('refuses an unknown job, an unknown conversation and a bad time with a clear message and exit code 1', async () => {
    const unknownJob = await schedule('rm', 'zzzzzzzz');
    expect(unknownJob).toMatchObject({ code: 1, stdout: '' });
    expect(unknownJob.stderr).toMatch(/no scheduled job has the id "zzzzzzzz"/);
    const unknownChat = await schedule('add', '--to', 'telegram:999', '--in', '1h', 'Nobody is there.');
    expect(unknownChat.code).toBe(1);
    expect(unknownChat.stderr).toMatch(/operator has never talked in telegram:999; someone must write there/);
    const badTime = await schedule('add', '--to', `telegram:${chat}`, '--at', '2020-01-01T09:00:00+01:00', 'Too late.');
    expect(badTime.code).toBe(1);
    expect(badTime.stderr).toMatch(/past/);
    const usage = await schedule('add', '--in', '1h', 'No place.');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/add needs --to/);
  });

  it('refuses a control file whose token is wrong, never printing the token', async () => {
    const original = readFileSync(controlFile(), 'utf8');
    const file = JSON.parse(original) as { token: string };
    const wrong = 'x'.repeat(43);
    writeFileSync(controlFile(), JSON.stringify({ ...file, token: wrong }));
    try {
      const refused = await schedule('list');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/refused the request \(HTTP 401\)/);
      expect(refused.stderr).not.toContain(wrong);
      expect(refused.stderr).not.toContain(file.token);
    } finally {
      writeFileSync(controlFile(), original, { mode: 0o600 });
    }
  });

  it('changes the store directly while the gateway is down, and the gateway runs the job when it starts', async () => {
    await gateway!.stop();
    gateway = undefined;
    expect(() => statSync(controlFile())).toThrow();

    // Due about when the gateway is up again: whether the start finds it due or its timer fires, it runs once.
    const added = await schedule('add', '--to', `telegram:${chat}`, '--in', '1s', '--name', 'offline', 'Say the offline job ran.');
    expect(added.code).toBe(0);
    expect(added.stderr).toMatch(/No gateway is running: the store was changed directly/);
    const id = jobId(added.stdout);
    expect((await schedule('list')).stdout).toContain(`${id}  "offline"  active`);

    model.enqueue({ text: 'The offline job ran.' });
    await start();
    await find((text) => text === 'The offline job ran.');
    await roundTrip('After the offline job.');
    expect(telegram.messages(chat).filter((message) => message.text === 'The offline job ran.')).toHaveLength(1);
  });

  it('ignores a control file left by a gateway that died, and works on the store', async () => {
    await gateway!.kill();
    gateway = undefined;
    // A kill leaves the file behind, naming a process that no longer runs.
    expect(JSON.parse(readFileSync(controlFile(), 'utf8'))).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    const listed = await schedule('list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/"offline" {2}done/);
    await start();
  });
});

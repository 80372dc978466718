/**
 * Scheduled follow-ups, end to end: the real gateway process, the fake model server (which issues
 * the `schedule` tool calls and answers the jobs' turns) and the fake Bot API server. A reminder
 * arrives in its chat; `/schedule` lists, cancels and pauses; a restart before the due time fires
 * once after it; runs missed while the gateway was down run once within the grace window and are
 * skipped beyond it; an undeliverable answer is recorded as such; a crash mid-run never runs that
 * time again.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Scheduler, type NewJob } from '../../src/gateway/scheduler/index.ts';
import { createStoreFromEnv } from '../../src/store/from-env.ts';
import { ownerSeat } from '../../src/tools/turn-seat.ts';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { startGateway } from '../helpers/gateway-process.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { startTelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';
import type { TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const chat = 1001;
const wait = 15_000;

describe('scheduled follow-ups through Telegram', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess | undefined;

  const start = async () => {
    gateway = await startGateway({ home: fakes.home, env: fakes.env([chat]) }, wait);
  };

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-schedule-e2e-');
    ({ model, telegram } = fakes);
    // Recurring jobs may run every 2 seconds here, so that one can be seen to run twice.
    writeFileSync(join(fakes.home, 'operator.json'), JSON.stringify({ schedule: { minIntervalMinutes: 2 / 60 } }));
    mkdirSync(join(fakes.home, 'profiles', 'formal'), { recursive: true });
    writeFileSync(join(fakes.home, 'profiles', 'formal', 'SOUL.md'), 'You are the formal assistant (marker FORMAL-7).\n');
    await start();
  });

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const say = (text: string) => telegram.pushUpdate(telegram.textMessage({ chatId: chat, text, from: { id: chat, first_name: 'Ada' } }));
  const find = (predicate: (text: string) => boolean) =>
    telegram.waitFor((fake) => fake.messages(chat).find((message) => predicate(message.text)), wait).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${gateway?.output.all()}`);
    });
  const texts = () => telegram.messages(chat).map((message) => message.text);
  /** The answer to a `/schedule ...` command. */
  const command = async (text: string, expected: RegExp) => {
    const before = telegram.messages(chat).length;
    say(text);
    const answer = await telegram.waitFor((fake) => fake.messages(chat).slice(before).find((message) => expected.test(message.text)), wait).catch((error: unknown) => {
      throw new Error(`${String(error)}: ${JSON.stringify(texts().slice(before))}\n${gateway?.output.all()}`);
    });
    return answer.text;
  };
  /** The job id the `schedule` tool returned to the model in its last request. */
  const lastJobId = () => /Scheduled job ([0-9a-z]{8})/.exec(JSON.stringify(model.requests.at(-1)!.body.messages.at(-1)))?.[1];
  /** Has the model create a job with `args` while answering `text`, and returns the job id. */
  const schedule = async (args: Record<string, unknown>, answer: string) => {
    model.enqueue({ toolCalls: [{ name: 'schedule', arguments: { action: 'create', ...args } }] }, { text: answer });
    say(`please schedule: ${answer}`);
    await find((text) => text === answer);
    const id = lastJobId();
    if (!id) throw new Error(`no job created: ${JSON.stringify(model.requests.at(-1)!.body.messages.at(-1))}`);
    return id;
  };
  /** Sends one more message and waits for its answer: whatever the gateway did before is done. */
  const roundTrip = async (answer: string) => {
    model.enqueue({ text: answer });
    say(`say ${answer}`);
    await find((text) => text === answer);
  };
  /** Writes a job straight into the gateway's store, as if made at `createdAt` (the gateway is stopped). */
  const seedJob = async (job: Partial<NewJob>, createdAt: number): Promise<string> => {
    const store = createStoreFromEnv({ OPERATOR_HOME: fakes.home });
    const scheduler = new Scheduler({ store, run: async () => ({ status: 'ok' }), notify: async () => {}, now: () => createdAt, settings: { timezone: 'UTC' } });
    await scheduler.load();
    const target = { sessionKey: `telegram:dm:${chat}`, address: { platform: 'telegram', conversationId: String(chat) }, scope: 'dm' as const };
    const { job: created } = await scheduler.create({ prompt: 'seeded', target, profile: 'default', seat: ownerSeat, ...job }, { id: String(chat), admin: true, fromJob: false });
    await store.close();
    return created.id;
  };

  it('delivers a reminder a moment later in the chat it came from, marked as scheduled for the model', async () => {
    model.enqueue({ toolCalls: [{ name: 'schedule', arguments: { action: 'create', delay_seconds: 1, prompt: 'Remind Ada to send the report.', name: 'report' } }] }, { text: 'I will remind you.' }, { text: 'Reminder: send the report.' });
    say('remind me in a second to send the report');
    await find((text) => text === 'I will remind you.');
    expect(JSON.stringify(model.requests.at(-1)!.body.messages.at(-1))).toMatch(/Scheduled job [0-9a-z]{8} \\"report\\": next run in 1 second /);
    await find((text) => text === 'Reminder: send the report.');
    const fired = JSON.stringify(model.requests.at(-1)!.body.messages.at(-1));
    expect(fired).toContain('scheduled follow-up, not typed by a person');
    expect(fired).toContain('Remind Ada to send the report.');
    expect(await command('/schedule', /No scheduled jobs|report/)).toMatch(/done; last run ok/);
  });

  it('lists, pauses, resumes and cancels a recurring job by /schedule', async () => {
    const id = await schedule({ every: '1d', prompt: 'Post the on-call summary.' }, 'Every day it is.');
    const listed = await command('/schedule list', new RegExp(id));
    expect(listed).toMatch(new RegExp(`${id}; active; next in 1 day`));
    expect(listed).toContain(`This conversation is telegram:${chat} (for operator schedule add --to).`);
    expect(await command('/schedule list all', new RegExp(id))).toMatch(new RegExp(`${id}; active; in telegram:${chat}; next in 1 day`));
    expect(await command(`/schedule pause ${id}`, /Paused|job/)).toBe(`Paused job ${id}.`);
    expect(await command(`/schedule resume ${id}`, /Resumed|job/)).toMatch(new RegExp(`^Resumed job ${id}\\. Next run in 1 day`));
    expect(await command(`/schedule cancel ${id}`, /Cancelled|job/)).toBe(`Cancelled job ${id}.`);
    // Only the done reminder of the first test is left.
    expect(await command('/schedule list', /No scheduled jobs|done/)).not.toContain(id);
    expect(await command('/schedule cancel zzzzzzzz', /zzzzzzzz/)).toMatch(/no scheduled job has the id "zzzzzzzz"/);
  });

  it('gives the model a precise error for an invalid schedule', async () => {
    model.enqueue({ toolCalls: [{ name: 'schedule', arguments: { action: 'create', cron: '*/1 * * * * *', prompt: 'every second' } }] }, { text: 'Seconds are not possible.' });
    say('check every second');
    await find((text) => text === 'Seconds are not possible.');
    expect(JSON.stringify(model.requests.at(-1)!.body.messages.at(-1))).toMatch(/has 6 fields \(seconds and years fields are not supported\); it takes exactly 5 fields/);
    model.enqueue({ toolCalls: [{ name: 'schedule', arguments: { action: 'create', every: '1s', prompt: 'too often' } }] }, { text: 'That was too often.' });
    say('check every second, really');
    await find((text) => text === 'That was too often.');
    expect(JSON.stringify(model.requests.at(-1)!.body.messages.at(-1))).toMatch(/every 1s is shorter than the minimum interval for recurring jobs \(2s\)/);
  });

  it('runs a recurring job at each of its times, as often as its repeat count says', async () => {
    const id = await schedule({ every: '2s', repeat: 2, prompt: 'Count the ticks.', name: 'ticks' }, 'Two ticks coming.');
    model.enqueue({ text: 'Tick one.' }, { text: 'Tick two.' });
    await find((text) => text === 'Tick one.');
    await find((text) => text === 'Tick two.');
    await roundTrip('After the ticks.');
    const prompts = model.requests.filter((request) => JSON.stringify(request.body.messages.at(-1)).includes('Count the ticks.'));
    expect(prompts).toHaveLength(2);
    expect(JSON.stringify(prompts[0]!.body.messages.at(-1))).toContain('repeats every 2s');
    expect(await command('/schedule list', new RegExp(id))).toMatch(new RegExp(`${id} "ticks"; done; last run ok`));
  });

  it('runs a job with the profile it was created with, after the chat switched to another', async () => {
    expect(await command('/profile formal', /Profile/)).toBe('Profile is now formal.');
    const id = await schedule({ delay_seconds: 4, prompt: 'Say something formal.' }, 'A formal note is scheduled.');
    expect(JSON.stringify(model.requests.at(-1)!.body.system)).toMatch(/FORMAL-7/);
    expect(await command('/profile default', /Profile/)).toBe('Profile is now default.');
    await roundTrip('Plain again.');
    expect(JSON.stringify(model.requests.at(-1)!.body.system)).not.toMatch(/FORMAL-7/);
    model.enqueue({ text: 'A formal note.' });
    await find((text) => text === 'A formal note.');
    expect(JSON.stringify(model.requests.at(-1)!.body.messages.at(-1))).toContain('Say something formal.');
    expect(JSON.stringify(model.requests.at(-1)!.body.system)).toMatch(/FORMAL-7/);
    // The chat keeps the profile it is bound to.
    await roundTrip('Still plain.');
    expect(JSON.stringify(model.requests.at(-1)!.body.system)).not.toMatch(/FORMAL-7/);
    expect(await command('/schedule list', new RegExp(id))).toMatch(new RegExp(`${id}; done; last run ok`));
  });

  describe('across one restart', () => {
    // One restart serves both tests (a start is the slow part): a job made before it, due after
    // it, and two jobs written to the store while the gateway was down, due long before it.
    let recent: string;
    let old: string;
    /** The prompt of a request's newest message. */
    const newest = (request: (typeof model.requests)[number]) => JSON.stringify(request.body.messages.at(-1));
    beforeAll(async () => {
      await schedule({ delay_seconds: 4, prompt: 'Check the deploy.' }, 'Checking in four seconds.');
      await gateway!.stop();
      gateway = undefined;
      const now = Date.now();
      recent = await seedJob({ delay_seconds: 60, prompt: 'Missed recently.', name: 'recent' }, now - 2 * 3_600_000);
      old = await seedJob({ delay_seconds: 60, prompt: 'Missed long ago.', name: 'old' }, now - 7 * 3_600_000);
      // Each job's answer says which job asked, whichever of the two runs first.
      const answer = (request: (typeof model.requests)[number]) => ({ text: newest(request).includes('Missed recently.') ? 'Caught up on the recent one.' : newest(request).includes('Check the deploy.') ? 'The deploy is fine.' : 'An unexpected run.' });
      model.enqueue(answer, answer);
      await start();
    });

    it('fires once after a restart that came before the due time', async () => {
      await find((text) => text === 'The deploy is fine.');
      await roundTrip('After the check.');
      expect(texts().filter((text) => text === 'The deploy is fine.')).toHaveLength(1);
    });

    it('runs a job missed while down once if within the grace window, and skips one beyond it', async () => {
      await find((text) => text === 'Caught up on the recent one.');
      expect(model.requests.filter((request) => newest(request).includes('Missed recently.'))).toHaveLength(1);
      expect(model.requests.filter((request) => newest(request).includes('Missed long ago.'))).toHaveLength(0);
      await roundTrip('Nothing else.');
      const list = await command('/schedule list', /recent|old/);
      expect(list).toMatch(new RegExp(`${recent} "recent"; done; last run ok`));
      expect(list).toMatch(new RegExp(`${old} "old"; done; last run skipped`));
      expect(texts()).not.toContain('An unexpected run.');
    });
  });

  it('records an answer that could not be delivered as a failed run, not as ok', async () => {
    const id = await schedule({ delay_seconds: 1, prompt: 'Say something undeliverable.' }, 'Will do.');
    model.enqueue({ text: 'This answer bounces.' });
    telegram.failNext('sendMessage', { status: 403, description: 'Forbidden: bot was blocked by the user', when: (params) => String(params.text).includes('bounces') });
    await telegram.waitFor((fake) => fake.callsOf('sendMessage').find((call) => call.status === 403), wait);
    const list = await command('/schedule list', new RegExp(id));
    expect(list).toMatch(new RegExp(`${id}; done; last run error: the answer could not be delivered`));
  });

  it('never runs again a time whose run a crash interrupted', async () => {
    const id = await schedule({ delay_seconds: 1, prompt: 'A slow check.' }, 'Slow check set.');
    const requests = model.requests.length;
    model.enqueue({ text: 'Too late to be seen.', delayMs: 20_000 });
    for (const deadline = Date.now() + wait; model.requests.length === requests; ) {
      if (Date.now() > deadline) throw new Error(`the job did not run\n${gateway?.output.all()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await gateway!.kill();
    await start();
    await roundTrip('Back after the crash.');
    const list = await command('/schedule list', new RegExp(id));
    expect(list).toMatch(new RegExp(`${id}; done; last run error: interrupted`));
    // The job's prompt was the newest input of exactly one request: the run the crash cut short.
    const newestInput = (request: (typeof model.requests)[number]) => JSON.stringify((request.body.messages.at(-1)!.content as unknown[]).at(-1));
    expect(model.requests.filter((request) => newestInput(request).includes('A slow check.'))).toHaveLength(1);
    expect(texts()).not.toContain('Too late to be seen.');
  });
});

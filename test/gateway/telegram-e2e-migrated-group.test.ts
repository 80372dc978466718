/**
 * A Telegram group upgraded to a supergroup (Telegram's `migrate_to_chat_id` and
 * `migrate_from_chat_id` service messages: the chat gets a new id), end to end: the real gateway
 * process against the fake Bot API and the fake model, and the real `operator schedule` command.
 * Besides its conversation, what was set for the group goes along: its scheduled job delivers to
 * the new chat (listed by `/schedule` there, and a run lands there), the tools an admin granted
 * everyone there (`/config tools`) and the profile chosen there (`/profile`) hold in the new chat.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FakeModelServer } from '../fakes/fake-model-server.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { approveGroups, telegramGroup } from '../helpers/approved-groups.ts';
import type { GatewayProcess } from '../helpers/gateway-process.ts';
import { runOperator } from '../helpers/operator-process.ts';
import { findFinalBotMessage, startTelegramGateway, startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const admin = { id: 1001, first_name: 'Ada' };
/** A basic group, approved, that Telegram upgrades to the supergroup {@link upgraded}. */
const basicGroup = -4440002;
const upgraded = -1005550002;
const wait = 20_000;

describe('a Telegram group made a supergroup takes its jobs, grants and profile along', () => {
  let fakes: TelegramGatewayFakes;
  let model: FakeModelServer;
  let telegram: FakeTelegram;
  let gateway: GatewayProcess;
  let messageId = 7_000;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-telegram-e2e-migrated-');
    ({ model, telegram } = fakes);
    mkdirSync(join(fakes.home, 'profiles', 'formal'), { recursive: true });
    writeFileSync(join(fakes.home, 'profiles', 'formal', 'SOUL.md'), 'You are the formal assistant (marker FORMAL-9).\n');
    await approveGroups(fakes.home, [telegramGroup(basicGroup)]);
    gateway = await startTelegramGateway(fakes, [admin.id]);
  }, 60_000);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const mention = () => `@${telegram.bot.username}`;
  const say = (chat: number, text: string, chatType: 'group' | 'supergroup') => telegram.pushUpdate(telegram.textMessage({ chatId: chat, chatType, chatTitle: 'Team', text, from: admin }));
  /** Sends `text` in `chat` and waits for the bot's reply matching `expected`. */
  async function command(chat: number, chatType: 'group' | 'supergroup', text: string, expected: RegExp): Promise<string> {
    const before = telegram.messages(chat).length;
    say(chat, text, chatType);
    const reply = await telegram.waitFor((fake) => fake.messages(chat).slice(before).find((message) => expected.test(message.text)), wait).catch((error: unknown) => {
      throw new Error(`${String(error)}\n${gateway.output.all()}`);
    });
    return reply.text;
  }

  it('moves the job, the grant and the profile chosen in the group to the supergroup', async () => {
    // Set in the basic group: a tool granted everyone, a profile, a daily job.
    await command(basicGroup, 'group', '/config tools read on', /Everyone here may now use read/);
    await command(basicGroup, 'group', '/profile formal', /Profile is now formal/);
    model.enqueue({ toolCalls: [{ name: 'schedule', arguments: { action: 'create', cron: '0 9 * * *', prompt: 'Post the stand-up reminder.', name: 'standup' } }] }, { text: 'The stand-up reminder is set.' });
    say(basicGroup, `${mention()} remind us of the stand-up every morning`, 'group');
    await findFinalBotMessage(telegram, gateway, basicGroup, 'The stand-up reminder is set.', wait);
    const jobId = /Scheduled job ([0-9a-z]{8}) \\"standup\\"/.exec(JSON.stringify(model.requests.at(-1)!.body.messages.at(-1)))?.[1];
    expect(jobId, JSON.stringify(model.requests.at(-1)!.body.messages.at(-1))).toBeDefined();

    // What Telegram sends when the group becomes a supergroup: a service message in each chat.
    const now = Math.floor(Date.now() / 1000);
    telegram.pushRaw(
      { message: { message_id: ++messageId, date: now, chat: { id: basicGroup, type: 'group', title: 'Team' }, from: { ...admin, is_bot: false }, migrate_to_chat_id: upgraded } },
      {
        message: {
          message_id: 1,
          date: now,
          chat: { id: upgraded, type: 'supergroup', title: 'Team' },
          from: { id: 1087968824, is_bot: true, first_name: 'Group', username: 'GroupAnonymousBot' },
          sender_chat: { id: upgraded, type: 'supergroup', title: 'Team' },
          migrate_from_chat_id: basicGroup,
        },
      },
    );
    await gateway.output.waitFor(`moved here from telegram:group:${basicGroup}: 1 scheduled job (${jobId}), the tools granted there (read), its profile (formal)`, {
      stream: 'all',
      timeoutMs: wait,
      label: 'what moved, in the log',
    });

    // The supergroup has them now: the job is listed there, the grant and the profile hold there.
    expect(await command(upgraded, 'supergroup', '/schedule', /standup|No scheduled jobs/)).toContain(jobId);
    const settings = await command(upgraded, 'supergroup', '/config', /Profile:/);
    expect(settings).toContain('Profile: formal (chosen here)');
    expect(settings).toContain('Tools granted everyone here from the chat: read');
    // And the basic group no longer has them.
    expect(await command(basicGroup, 'group', '/schedule', /standup|No scheduled jobs/)).not.toContain(jobId);

    // A run of the job now lands in the supergroup, with the profile chosen there.
    model.enqueue({ text: 'Stand-up in five minutes.' });
    const run = await runOperator(['schedule', 'run', jobId!], { HOME: fakes.home, OPERATOR_HOME: fakes.home });
    expect(run.code, run.stderr).toBe(0);
    await findFinalBotMessage(telegram, gateway, upgraded, 'Stand-up in five minutes.', wait);
    expect(telegram.messages(basicGroup).map((message) => message.text)).not.toContain('Stand-up in five minutes.');
    expect(JSON.stringify(model.requests.at(-1)!.body.system)).toContain('FORMAL-9');
  });
});

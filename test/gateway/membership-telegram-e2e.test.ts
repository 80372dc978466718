/**
 * The bot removed from a group or blocked in a direct chat, through the real gateway process and
 * grammy against the fake Bot API: Telegram's `my_chat_member` about the bot pauses the scheduled
 * jobs there (said in the log, never in the chat), and unblocking resumes the jobs the block paused.
 * Only the platform's event about the bot itself does it: a `chat_member` about a person leaving,
 * a `my_chat_member` about another user, and an update posted to the webhook without its secret
 * (a stranger forging one) change nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChatMemberUpdated } from 'grammy/types';
import { Scheduler, type Job } from '../../src/gateway/scheduler/index.ts';
import { createStoreFromEnv } from '../../src/store/from-env.ts';
import { ownerSeat } from '../../src/tools/turn-seat.ts';
import type { FakeTelegram } from '../fakes/fake-telegram-server.ts';
import { freePort } from '../helpers/free-port.ts';
import { startGateway, type StartedGateway } from '../helpers/gateway-process.ts';
import { startTelegramGatewayFakes, type TelegramGatewayFakes } from '../helpers/telegram-gateway-fakes.ts';

const wait = 30_000;
const admin = 5_001;
const person = 5_002;
const group = -100_555_0001;
const otherGroup = -100_555_0002;
const webhookSecret = 'membership-webhook-secret-0123456789';

/** Opens the gateway's store beside it and runs `use` with its scheduler (reading only, or while the gateway is stopped). */
async function withScheduler<T>(home: string, use: (scheduler: Scheduler) => Promise<T>): Promise<T> {
  const store = createStoreFromEnv({ OPERATOR_HOME: home });
  try {
    const scheduler = new Scheduler({ store, run: async () => ({ status: 'ok' }), notify: async () => {}, settings: { timezone: 'UTC' } });
    await scheduler.load();
    return await use(scheduler);
  } finally {
    await store.close();
  }
}

/** Seeds a daily job delivering to `chatId` (a group when negative). */
function seed(home: string, chatId: number, name: string): Promise<Job> {
  const scope = chatId < 0 ? ('group' as const) : ('dm' as const);
  const target = { sessionKey: `telegram:${scope}:${chatId}`, address: { platform: 'telegram', conversationId: String(chatId) }, scope };
  return withScheduler(home, async (scheduler) => (await scheduler.create({ prompt: `daily ${name}`, name, every: '1d', target, profile: 'default', seat: ownerSeat }, { id: String(admin), admin: true, fromJob: false })).job);
}

/** The state of each job now, by name (read from the store). */
const statesOf = (home: string) => withScheduler(home, async (scheduler) => Object.fromEntries(scheduler.list().map((job) => [job.name, { state: job.state, pausedReason: job.pausedReason }])));

/** A `my_chat_member` change of `userId` in `chat` from `before` to `after`, by `from`. */
function memberChange(telegram: FakeTelegram, chat: ChatMemberUpdated['chat'], userId: number, before: string, after: string, from = person) {
  const user = userId === telegram.bot.id ? { id: userId, is_bot: true, first_name: 'Operator', username: telegram.bot.username } : { id: userId, is_bot: false, first_name: 'Someone' };
  return { chat, from: { id: from, is_bot: false, first_name: 'FN' }, date: Math.floor(Date.now() / 1000), old_chat_member: { user, status: before }, new_chat_member: { user, status: after, ...(after === 'kicked' ? { until_date: 0 } : {}) } } as unknown as ChatMemberUpdated;
}

describe('Telegram: the bot removed from a group or blocked in a direct chat', () => {
  let fakes: TelegramGatewayFakes;
  let telegram: FakeTelegram;
  let gateway: StartedGateway | undefined;
  let port: number;

  beforeAll(async () => {
    fakes = await startTelegramGatewayFakes('operator-membership-telegram-');
    ({ telegram } = fakes);
    for (const [chat, name] of [[group, 'group'], [otherGroup, 'other-group'], [person, 'dm'], [admin, 'admin-dm']] as const) await seed(fakes.home, chat, name);
    port = await freePort();
    gateway = await startGateway({ home: fakes.home, port, env: { ...fakes.env([admin]), TELEGRAM_WEBHOOK_URL: `http://127.0.0.1:${port}/webhooks/telegram`, TELEGRAM_WEBHOOK_SECRET: webhookSecret } }, wait);
    telegram.deliverToWebhook();
  }, 2 * wait);

  afterAll(async () => {
    await gateway?.stop();
    await fakes?.close();
  });

  const logged = (pattern: RegExp) => gateway!.output.waitFor(pattern, { timeoutMs: wait, label: String(pattern), stream: 'stderr' });

  it('asks Telegram for my_chat_member updates', () => {
    expect(telegram.webhook?.allowedUpdates).toEqual(expect.arrayContaining(['message', 'callback_query', 'my_chat_member']));
  });

  it("changes nothing for a forged update without the webhook's secret, a person leaving, or another user's membership", async () => {
    const forged = telegram.recorded({ my_chat_member: memberChange(telegram, { id: group, type: 'supergroup', title: 'Ops' }, telegram.bot.id, 'member', 'kicked') });
    expect(await telegram.postWebhook(forged, { secret: null })).toBe(401);
    expect(await telegram.postWebhook(forged, { secret: 'a-guessed-secret-of-some-length' })).toBe(401);
    // A person (not the bot) leaves, as chat_member and as a my_chat_member about someone else.
    telegram.pushUpdate(telegram.recorded({ chat_member: memberChange(telegram, { id: group, type: 'supergroup', title: 'Ops' }, person, 'member', 'left') }));
    telegram.pushUpdate(telegram.recorded({ my_chat_member: memberChange(telegram, { id: group, type: 'supergroup', title: 'Ops' }, person, 'member', 'kicked') }));
    // A marker the gateway handles after them (one chat's updates go in order): the bot leaves another group.
    telegram.pushUpdate(telegram.recorded({ my_chat_member: memberChange(telegram, { id: otherGroup, type: 'supergroup', title: 'Other' }, telegram.bot.id, 'member', 'left') }));
    await logged(new RegExp(`telegram:group:${otherGroup}: the bot was removed; 1 scheduled job there paused`));
    const states = await statesOf(fakes.home);
    expect(states.group).toEqual({ state: 'active' });
    expect(states.dm).toEqual({ state: 'active' });
    expect(gateway!.output.all()).not.toContain(`telegram:group:${group}:`);
  });

  it('pauses the jobs of a group the bot was removed from, says so in the log and not in the chat', async () => {
    const sent = telegram.callsOf('sendMessage').length;
    telegram.pushUpdate(telegram.recorded({ my_chat_member: memberChange(telegram, { id: group, type: 'supergroup', title: 'Ops' }, telegram.bot.id, 'administrator', 'kicked', admin) }));
    await logged(new RegExp(`telegram:group:${group}: the bot was removed; 1 scheduled job there paused \\([0-9a-z]{8}\\)`));
    const states = await statesOf(fakes.home);
    expect(states.group).toEqual({ state: 'paused', pausedReason: 'paused by the platform: the bot was removed from the conversation' });
    expect(states.dm).toEqual({ state: 'active' });
    expect(states['admin-dm']).toEqual({ state: 'active' });
    expect(telegram.callsOf('sendMessage')).toHaveLength(sent);
  });

  it('pauses the jobs of a direct chat whose person blocked the bot (corpus: my-chat-member-bot-blocked-in-dm), and resumes them when unblocked', async () => {
    const dm = { id: person, first_name: 'FN', last_name: 'LN', username: 'UN', type: 'private' } as ChatMemberUpdated['chat'];
    telegram.pushUpdate(telegram.recorded({ my_chat_member: memberChange(telegram, dm, telegram.bot.id, 'member', 'kicked') }));
    await logged(new RegExp(`telegram:dm:${person}: the person blocked the bot; 1 scheduled job there paused`));
    expect((await statesOf(fakes.home)).dm).toEqual({ state: 'paused', pausedReason: 'paused by the platform: the person blocked the bot' });

    telegram.pushUpdate(telegram.recorded({ my_chat_member: memberChange(telegram, dm, telegram.bot.id, 'kicked', 'member') }));
    await logged(new RegExp(`telegram:dm:${person}: the person unblocked the bot; 1 scheduled job there resumed`));
    const states = await statesOf(fakes.home);
    expect(states.dm).toEqual({ state: 'active' });
    // A job paused for another reason (the group's) is not resumed by someone unblocking the bot.
    expect(states.group?.state).toBe('paused');
  });
});

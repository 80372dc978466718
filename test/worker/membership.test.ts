/**
 * The bot's own place in a conversation, on Workers: blocked in a Telegram DM, its jobs there
 * pause, and resume when the person unblocks it; removed from a Slack channel, the channel's jobs
 * pause. A job is made the real way (the agent's `schedule` tool in a turn), and read back from
 * the conversation object's storage. An object that cannot take the change answers 503 (the
 * platform delivers it again), and a person's message about leaving pauses nothing.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { openJobStore, type Job } from '../../src/gateway/scheduler/index.ts';
import { objectStore } from '../../src/worker/object-store.ts';
import { telegramWebhook } from '../../src/worker/telegram-webhook.ts';
import type { WorkerEnv } from '../../src/worker/worker-env.ts';
import { callFake, eventually, readFake } from './support/fakes.ts';
import { approveGroup } from './support/groups.ts';
import { freshObject } from './support/objects.ts';
import { postSlackEvent } from './support/slack.ts';
import { postTelegramMessage, postTelegramUpdate } from './support/telegram.ts';

const workerEnv = env as WorkerEnv;
const admin = { id: 4242, name: 'Ada' };

/** The jobs kept by the object of `sessionKey`. */
async function jobsOf(sessionKey: string): Promise<Job[]> {
  const stub = workerEnv.CONVERSATIONS.get(workerEnv.CONVERSATIONS.idFromName(sessionKey));
  return runInDurableObject(stub, async (_object, state) => [...(await openJobStore(objectStore(state.storage, { unconfirmed: true }))).jobs()]);
}

/** Has the model schedule an hourly job in the conversation `post` talks in, and waits until it is kept. */
async function scheduleHourly(sessionKey: string, post: () => Promise<number>): Promise<void> {
  await callFake('model', 'reset');
  await callFake('model', 'enqueue', { toolCalls: [{ name: 'schedule', arguments: { action: 'create', prompt: 'Post the standup reminder.', every: '1h', name: 'standup' } }] }, { text: 'Every hour, then.' });
  expect(await post()).toBe(200);
  const jobs = await eventually(() => jobsOf(sessionKey), (list) => list.length === 1);
  expect(jobs.map((job) => job.state)).toEqual(['active']);
}

/** Telegram's `my_chat_member` for the bot in the private chat with `person`: `kicked` is blocked. */
function dmMembership(updateId: number, person: { id: number; name: string }, before: string, now: string, bot: { id: number; first_name: string; username: string }): object {
  const member = (status: string) => ({ user: { ...bot, is_bot: true }, status, ...(status === 'kicked' ? { until_date: 0 } : {}) });
  return {
    update_id: updateId,
    my_chat_member: { chat: { id: person.id, type: 'private', first_name: person.name }, from: { id: person.id, is_bot: false, first_name: person.name }, date: Math.floor(Date.now() / 1000), old_chat_member: member(before), new_chat_member: member(now) },
  };
}

it('pauses the jobs of a Telegram DM when the person blocks the bot, and resumes them when they unblock it', async () => {
  const sessionKey = `telegram:dm:${admin.id}`;
  await freshObject(sessionKey);
  await scheduleHourly(sessionKey, () => postTelegramMessage({ updateId: 960_001, text: 'remind me of the standup every hour', from: admin }));
  const bot = await readFake<{ id: number; first_name: string; username: string }>('telegram', 'bot');

  expect(await postTelegramUpdate(dmMembership(960_002, admin, 'member', 'kicked', bot))).toBe(200);
  const paused = await jobsOf(sessionKey);
  expect(paused.map((job) => [job.state, job.pausedReason])).toEqual([['paused', 'paused by the platform: the person blocked the bot']]);

  expect(await postTelegramUpdate(dmMembership(960_003, admin, 'kicked', 'member', bot))).toBe(200);
  expect((await jobsOf(sessionKey)).map((job) => job.state)).toEqual(['active']);
});

it('answers 503 when the conversation cannot take the change, so Telegram delivers it again', async () => {
  const bot = await readFake<{ id: number; first_name: string; username: string }>('telegram', 'bot');
  const refusing = {
    idFromName: (name: string) => workerEnv.CONVERSATIONS.idFromName(name),
    get: () => ({ membershipChanged: () => Promise.reject(new Error('storage unavailable')) }),
  } as unknown as WorkerEnv['CONVERSATIONS'];
  const request = new Request('http://example.com/webhooks/telegram', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-telegram-bot-api-secret-token': 'test-webhook-secret' },
    body: JSON.stringify(dmMembership(960_101, { id: 7373, name: 'Cy' }, 'member', 'kicked', bot)),
  });
  const response = await telegramWebhook(request, { ...workerEnv, CONVERSATIONS: refusing });
  expect(response.status).toBe(503);
  await response.body?.cancel();
});

it("pauses a Slack channel's jobs when the bot is removed from it; a person leaving pauses nothing", async () => {
  const channel = 'C0WRKLEFT1';
  const sessionKey = `slack:channel:${channel}`;
  const slackBot = await readFake<{ userId: string }>('slack', 'bot');
  await approveGroup({ platform: 'slack', kind: 'channel', id: channel }, 'telegram:4242');
  // A channel answered at the top level (`SLACK_REPLY_IN_THREAD=never`): its jobs live in the
  // channel's own conversation, which the bot's leaving names. (By default a job made in a thread
  // lives in that thread's conversation, which no event names: docs/workers.md.)
  const post = (event: Record<string, unknown>) => postSlackEvent(event, { SLACK_REPLY_IN_THREAD: 'never' });
  const asked = await callFake<Record<string, unknown>>('slack', 'personMessage', { channel, text: `<@${slackBot.userId}> remind us of the standup every hour`, from: { id: 'U0WRKTURN1', name: 'Ada' } });
  await scheduleHourly(sessionKey, () => post(asked));

  // Someone else leaving is not the bot's leaving.
  expect(await post({ type: 'member_left_channel', channel, user: 'U0SOMEONE1', event_ts: '1700000001.000100' })).toBe(200);
  expect((await jobsOf(sessionKey)).map((job) => job.state)).toEqual(['active']);

  expect(await post({ type: 'channel_left', channel, event_ts: '1700000002.000100' })).toBe(200);
  const paused = await jobsOf(sessionKey);
  expect(paused.map((job) => [job.state, job.pausedReason])).toEqual([['paused', 'paused by the platform: the bot was removed from the conversation']]);
});

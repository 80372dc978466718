/**
 * The kill switch on Workers (`/budget pause|resume`), inside workerd against the fakes, through
 * the webhook: an admin's pause refuses every model call (a member may not pause), a running turn
 * stops at its next call, and a message's person is told once that it waits; the conversation's
 * alarm running meanwhile neither answers it nor says it again; the resume answers each waiting
 * message once, from where its turn began. A call of a model without prices, which reserves
 * nothing, is refused too; a conversation the resume could not reach is woken by the spend
 * object's alarm.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { createStorage } from 'unstorage';
import { afterEach, describe, expect, it } from 'vitest';
import { SpendingPausedError } from '../../src/gateway/budget/spending-paused.ts';
import { createStore } from '../../src/store/unstorage-store.ts';
import { createConversationAgent } from '../../src/worker/conversation-agent.ts';
import { objectStore } from '../../src/worker/object-store.ts';
import { spendObject } from '../../src/worker/spend-object.ts';
import type { WorkerEnv } from '../../src/worker/worker-env.ts';
import { callFake, eventually, readFake } from './support/fakes.ts';
import { approveGroup } from './support/groups.ts';
import { postTelegramMessage } from './support/telegram.ts';

const workerEnv = env as WorkerEnv;
const admin = { id: 4242, name: 'Ada' };
const bea = { id: 9411, name: 'Bea' };
/** A turn runs a model request in workerd: on a busy machine it may take a while. */
const answerMs = 40_000;
const testTimeout = 120_000;
let updateId = 950_000;

/** What the paused call's person is told (the gateway's `SpendingPausedError`). */
const pausedNotice = 'Model calls are paused by an admin (/budget pause): this message is answered once they resume.';

const texts = (chat: number) => callFake<{ text: string }[]>('telegram', 'messages', chat).then((list) => list.map((message) => message.text));
const modelRequests = () => readFake<{ rawBody: string }[]>('model', 'requests');
const conversation = (group: number) => workerEnv.CONVERSATIONS.get(workerEnv.CONVERSATIONS.idFromName(`telegram:group:${group}`));
const count = (list: readonly string[], text: string) => list.filter((item) => item === text).length;

/**
 * `from` says `text` in `chat` (a group, mentioning the bot unless it is a command; or `from`'s
 * own chat); resolves to the first new message there that `expected` holds for.
 */
async function say(chat: number, from: { id: number; name: string }, text: string, expected: (reply: string) => boolean): Promise<string> {
  const { username } = await readFake<{ username: string }>('telegram', 'bot');
  const group = chat === from.id ? undefined : chat;
  const before = (await texts(chat)).length;
  const words = text.startsWith('/') || group === undefined ? text : `@${username} ${text}`;
  expect(await postTelegramMessage({ updateId: ++updateId, text: words, from, group })).toBe(200);
  const after = await eventually(() => texts(chat), (list) => list.slice(before).some(expected), answerMs);
  const reply = after.slice(before).find(expected);
  expect(reply, `no reply in ${chat} after "${text}"; got ${JSON.stringify(after.slice(before))}`).toBeDefined();
  return reply!;
}

describe('the kill switch on Workers, through the webhook', () => {
  // Every test file shares the one spend object: a test that failed midway leaves calls going on.
  afterEach(async () => {
    await spendObject(workerEnv).resume();
    await callFake('model', 'reset');
  });

  it('lets only an admin pause; while paused each message waits, told once, and the resume answers each once', { timeout: testTimeout }, async () => {
    const group = -100_951;
    await approveGroup({ platform: 'telegram', kind: 'group', id: String(group) }, 'telegram:4242');
    await callFake('model', 'reset');
    expect(await say(group, bea, '/budget pause', (reply) => reply.startsWith('Only'))).toBe('Only an admin can pause or resume model calls.');
    expect(await spendObject(workerEnv).paused()).toBe(false);

    expect(await say(admin.id, admin, '/budget pause', (reply) => reply.startsWith('Paused'))).toBe('Paused all model calls: running turns stop at their next call, and messages wait until /budget resume.');
    await say(group, bea, 'first question', (reply) => reply === pausedNotice);
    // A newer message wakes the conversation: the first is tried again, refused and not told again.
    await say(group, bea, 'second question', (reply) => reply === pausedNotice);
    expect(count(await texts(group), pausedNotice)).toBe(2);
    const status = await say(group, admin, '/budget', (reply) => reply.startsWith('Model calls are paused'));
    expect(status.split('\n')[0]).toBe('Model calls are paused (/budget resume lets them go on).');
    // The conversation's alarm (its safety net) while still paused: nothing is answered or said again.
    await runDurableObjectAlarm(conversation(group));
    expect(count(await texts(group), pausedNotice)).toBe(2);
    expect((await conversation(group).waiting()).map((entry) => entry.text)).toEqual([expect.stringContaining('first question'), expect.stringContaining('second question')]);
    expect(await modelRequests()).toHaveLength(0);

    await callFake('model', 'enqueue', { text: 'Answer to the first.' }, { text: 'Answer to the second.' });
    // Resumed from the waiting conversation itself: the spend object wakes it while its command runs.
    expect(await say(group, admin, '/budget resume', (reply) => reply.startsWith('Model calls go on'))).toBe('Model calls go on; the messages that waited are answered now.');
    const answered = await eventually(() => texts(group), (list) => list.includes('Answer to the second.'), answerMs);
    expect(answered.filter((text) => text.startsWith('Answer to'))).toEqual(['Answer to the first.', 'Answer to the second.']);
    expect(await conversation(group).waiting()).toEqual([]);
    // Its alarm again (once the round that answered is over): nothing is answered twice.
    await runDurableObjectAlarm(conversation(group));
    expect(await modelRequests()).toHaveLength(2);
    // Answered, the notes of their notices are let go.
    await runInDurableObject(conversation(group), async (_instance, state) => expect(await objectStore(state.storage).get('conversation:paused-told')).toBeNull());
    expect((await texts(group)).filter((text) => text.startsWith('Answer to'))).toEqual(['Answer to the first.', 'Answer to the second.']);
  });

  it('stops a running turn at its next call, and answers its message once after the resume, from where it began', { timeout: testTimeout }, async () => {
    const group = -100_952;
    await approveGroup({ platform: 'telegram', kind: 'group', id: String(group) }, 'telegram:4242');
    await callFake('model', 'reset');
    // The turn's first call is under way (held by the fake) when the admin pauses.
    await callFake('model', 'enqueue', { toolCalls: [{ name: 'schedule', arguments: { action: 'list' } }], heldBy: 'first call' });
    const before = (await texts(group)).length;
    const { username } = await readFake<{ username: string }>('telegram', 'bot');
    expect(await postTelegramMessage({ updateId: ++updateId, text: `@${username} which jobs are there?`, from: bea, group })).toBe(200);
    expect(await eventually(modelRequests, (list) => list.length === 1, answerMs)).toHaveLength(1);
    await say(admin.id, admin, '/budget pause', (reply) => reply.startsWith('Paused'));
    await callFake('model', 'release', 'first call');
    // Its second call, after the tool, is refused: the turn stops and its person is told.
    const told = await eventually(() => texts(group), (list) => list.slice(before).includes(pausedNotice), answerMs);
    expect(told.slice(before)).toEqual([pausedNotice]);
    expect(await modelRequests()).toHaveLength(1);
    expect(await conversation(group).waiting()).toHaveLength(1);

    await callFake('model', 'enqueue', { toolCalls: [{ name: 'schedule', arguments: { action: 'list' } }] }, { text: 'No jobs here.' });
    await say(admin.id, admin, '/budget resume', (reply) => reply.startsWith('Model calls go on'));
    await eventually(() => texts(group), (list) => list.includes('No jobs here.'), answerMs);
    expect(await conversation(group).waiting()).toEqual([]);
    const requests = await modelRequests();
    expect(requests).toHaveLength(3);
    // Run again from where it began: the refused turn left nothing behind, its message is in the session once.
    expect(requests[1]!.rawBody.split('which jobs are there?').length - 1).toBe(1);
    await runDurableObjectAlarm(conversation(group));
    expect(await modelRequests()).toHaveLength(3);
    expect(count(await texts(group), 'No jobs here.')).toBe(1);
    expect(count(await texts(group), pausedNotice)).toBe(1);
  });

  it('refuses a call of a model without prices too: it reserves nothing, but asks whether calls are paused', { timeout: testTimeout }, async () => {
    const turn = { sessionKey: 'telegram:dm:9412', platform: 'telegram', senderId: '9412', admin: false, scheduled: false };
    const agent = createConversationAgent({ env: { ...workerEnv, OPERATOR_MODEL: 'anthropic:claude-without-prices-1' }, store: createStore({ storage: createStorage() }), sessionKey: turn.sessionKey });
    await callFake('model', 'reset');
    await callFake('model', 'enqueue', { text: 'Answered once calls go on.' });
    expect(await spendObject(workerEnv).pause()).toBe(true);
    const error = await agent.invoke('hello', { turn }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(SpendingPausedError);
    expect(await modelRequests()).toHaveLength(0);
    expect(await spendObject(workerEnv).resume()).toBe(true);
    expect((await agent.invoke('hello again', { turn })).text).toBe('Answered once calls go on.');
  });

  it("wakes a conversation the resume could not reach from the spend object's alarm", async () => {
    const sessionKey = 'telegram:group:-100953';
    const spend = spendObject(workerEnv);
    const waiters = () =>
      runInDurableObject(spend, (_instance, state) => [...state.storage.kv.list({ prefix: 'budget-waiting:' })].map(([key]) => key).filter((key) => key.endsWith(sessionKey)));
    expect(await spend.pause()).toBe(true);
    // Asked while paused: noted, to be woken on resume.
    expect(await spend.paused(sessionKey)).toBe(true);
    const cut = { idFromName: () => 'nowhere', get: () => ({ resumed: () => Promise.reject(new Error('Durable Object reset')) }) } as unknown as WorkerEnv['CONVERSATIONS'];
    await runInDurableObject(spend, (instance) => {
      (instance as unknown as { env: WorkerEnv }).env = { ...workerEnv, CONVERSATIONS: cut };
    });
    expect(await spend.resume()).toBe(true);
    expect(await waiters()).toHaveLength(1);
    await runInDurableObject(spend, async (instance, state) => {
      expect(await state.storage.getAlarm()).toBeLessThanOrEqual(Date.now() + 60_000);
      (instance as unknown as { env: WorkerEnv }).env = workerEnv;
    });
    expect(await runDurableObjectAlarm(spend)).toBe(true);
    expect(await waiters()).toEqual([]);
  });
});

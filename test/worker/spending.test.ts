/**
 * Spending caps on Workers, inside workerd against the fakes: the bot's one spend object keeps
 * every cap's counter. A group conversation stops at its cap with the refusal's words and no model
 * call past it; a person's counter counts across two groups; a conversation near its cap (or its
 * person near theirs) is told so once a day, after the answer; a scheduled job's run is held to
 * the job caps; the spend object out of reach (its
 * binding throws, or its call fails) or an invalid `OPERATOR_BUDGETS` refuses the call before it
 * goes out, and the person is told. In the object: a reservation whose settle never comes expires,
 * one made before the object was evicted still holds, and past days' counters are swept.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { BudgetExhaustedError } from '../../src/core/errors.ts';
import { periodOf } from '../../src/gateway/budget/spend-book.ts';
import { failureReply } from '../../src/gateway/failure-reply.ts';
import { keySegment } from '../../src/gateway/dedupe.ts';
import { createStore } from '../../src/store/unstorage-store.ts';
import { createStorage } from 'unstorage';
import { createConversationAgent } from '../../src/worker/conversation-agent.ts';
import { objectStore } from '../../src/worker/object-store.ts';
import { spendObject } from '../../src/worker/spend-object.ts';
import { parseBudgets } from '../../src/worker/worker-budgets.ts';
import { spendUnreachableText } from '../../src/worker/worker-spending.ts';
import type { WorkerEnv } from '../../src/worker/worker-env.ts';
import { callFake, eventually, readFake } from './support/fakes.ts';
import { approveGroup } from './support/groups.ts';
import { postTelegramMessage } from './support/telegram.ts';

const workerEnv = env as WorkerEnv;
const admin = { id: 4242, name: 'Ada' };
const bea = { id: 9401, name: 'Bea' };
/** A turn runs a model request in workerd: on a busy machine it may take a while. */
const answerMs = 40_000;
const testTimeout = 90_000;
let updateId = 940_000;

const texts = (chat: number) => callFake<{ text: string }[]>('telegram', 'messages', chat).then((list) => list.map((message) => message.text));
const modelRequests = () => readFake<unknown[]>('model', 'requests').then((list) => list.length);

/**
 * `from` says `text` to the bot in `group` (mentioning it, unless it is a command); resolves to the
 * first new message there that `expected` holds for.
 */
async function say(group: number, from: { id: number; name: string }, text: string, expected: (reply: string) => boolean): Promise<string> {
  const { username } = await readFake<{ username: string }>('telegram', 'bot');
  const before = (await texts(group)).length;
  expect(await postTelegramMessage({ updateId: ++updateId, text: text.startsWith('/') ? text : `@${username} ${text}`, from, group })).toBe(200);
  const after = await eventually(() => texts(group), (list) => list.slice(before).some(expected), answerMs);
  const reply = after.slice(before).find(expected);
  expect(reply, `no reply in ${group} after "${text}"; got ${JSON.stringify(after.slice(before))}`).toBeDefined();
  return reply!;
}

describe('spending caps on Workers, through the webhook', () => {
  it('stops a group conversation at its cap with the refusal, and no model call goes out past it', { timeout: testTimeout }, async () => {
    const group = -100_941;
    await approveGroup({ platform: 'telegram', kind: 'group', id: String(group) }, 'telegram:4242');
    await callFake('model', 'reset');
    // An admin has no person cap: the group's own ($5 a day by default) is the one that counts.
    // Two answers of $2.475 each leave less than the next call's worst case (about $0.49); each
    // stays under the context's compaction threshold, so no other call is made.
    for (const answer of ['A long answer.', 'Another long answer.']) {
      await callFake('model', 'enqueue', { text: answer, usage: { input: 10, output: 165_000 } });
      await say(group, admin, 'write a lot', (reply) => reply === answer);
    }
    expect(await modelRequests()).toBe(2);
    const refusal = await say(group, admin, 'and more', (reply) => reply.startsWith('Not answered'));
    expect(refusal).toMatch(/^Not answered: this conversation's spending cap of \$5\.00 a day is reached \(\$4\.95 spent, \$0\.00 in calls under way\); it resets at \d{4}-\d{2}-\d{2} 00:00 UTC\.$/);
    expect(await modelRequests()).toBe(2);
    const report = await say(group, admin, '/budget', (reply) => reply.startsWith('Spending'));
    expect(report).toContain('this conversation: $4.95 of $5.00 this day');
    expect(report).not.toContain('you (');
  });

  it("counts a person's spend across two groups, and refuses them in the second", { timeout: testTimeout }, async () => {
    const [first, second] = [-100_942, -100_943];
    for (const group of [first, second]) await approveGroup({ platform: 'telegram', kind: 'group', id: String(group) }, 'telegram:4242');
    await callFake('model', 'reset');
    // $0.60 in the first group: Bea's $1 a day (the default for people who are not admins) has
    // less left than a call's worst case.
    await callFake('model', 'enqueue', { text: 'Answered in the first.', usage: { input: 10, output: 40_000 } });
    await say(first, bea, 'hello', (reply) => reply === 'Answered in the first.');
    const refusal = await say(second, bea, 'hello here too', (reply) => reply.startsWith('Not answered'));
    expect(refusal).toMatch(/^Not answered: this person's spending cap of \$1\.00 a day is reached \(\$0\.6000 spent, \$0\.00 in calls under way\)/);
    expect(await modelRequests()).toBe(1);
    // The second group spent nothing; Bea's counter is the same one seen from there.
    const report = await say(second, bea, '/budget', (reply) => reply.startsWith('Spending'));
    expect(report).toContain('this conversation: $0.00 of $5.00 this day');
    expect(report).toContain('you (telegram:9401): $0.6000 of $1.00 this day');
    // An admin in the same group is not bound by Bea's cap.
    await callFake('model', 'enqueue', { text: 'Answered for the admin.' });
    await say(second, admin, 'hello', (reply) => reply === 'Answered for the admin.');
  });

  it("tells a conversation once a day, after the answer, that its spend passed warnAt of its cap; and a person of theirs", { timeout: testTimeout }, async () => {
    const group = -100_946;
    await approveGroup({ platform: 'telegram', kind: 'group', id: String(group) }, 'telegram:4242');
    await callFake('model', 'reset');
    const heads = (list: string[]) => list.filter((text) => text.startsWith('Heads-up'));
    // The group's $5 a day (an admin has no person cap): $2.475, then $1.65 passes 80% of it.
    await callFake('model', 'enqueue', { text: 'First answer.', usage: { input: 10, output: 165_000 } });
    await say(group, admin, 'write a lot', (reply) => reply === 'First answer.');
    await callFake('model', 'enqueue', { text: 'Second answer.', usage: { input: 10, output: 110_000 } });
    const before = (await texts(group)).length;
    await say(group, admin, 'and more', (reply) => reply.startsWith('Heads-up'));
    expect((await texts(group)).slice(before)).toEqual([
      'Second answer.',
      'Heads-up: This conversation has spent $4.13 of its $5.00 daily cap (83%); at the cap I stop answering until it resets (/budget shows it).',
    ]);
    // Once that day: the next answer (there is room for its call) says nothing more.
    await callFake('model', 'enqueue', { text: 'Third answer.' });
    await say(group, admin, 'a little more', (reply) => reply === 'Third answer.');
    // A command is answered after the turn before it is done, its notice included.
    await say(group, admin, '/budget', (reply) => reply.startsWith('Spending'));
    expect(heads(await texts(group))).toHaveLength(1);

    // A person's own cap ($1 a day for one who is not an admin), in another group.
    const other = -100_947;
    await approveGroup({ platform: 'telegram', kind: 'group', id: String(other) }, 'telegram:4242');
    await callFake('model', 'enqueue', { text: 'Answered, Cy.', usage: { input: 10, output: 56_000 } });
    await say(other, { id: 9421, name: 'Cy' }, 'hello', (reply) => reply.startsWith('Heads-up'));
    expect(heads(await texts(other))).toEqual(['Heads-up: You have spent $0.8400 of your $1.00 daily cap (84%); at the cap I stop answering until it resets (/budget shows it).']);
  });

  it("holds a scheduled job's run to budgets.job: its call is refused before it goes out, and the conversation told", { timeout: testTimeout }, async () => {
    const group = -100_948;
    await approveGroup({ platform: 'telegram', kind: 'group', id: String(group) }, 'telegram:4242');
    // This conversation's object (made now, before its first message) reads a job cap below a
    // call's worst case (about $0.49).
    await runInDurableObject(workerEnv.CONVERSATIONS.get(workerEnv.CONVERSATIONS.idFromName(`telegram:group:${group}`)), (instance) => {
      const object = instance as unknown as { env: WorkerEnv };
      object.env = { ...object.env, OPERATOR_BUDGETS: '{"job":{"run":0.3}}' };
    });
    await callFake('model', 'reset');
    await callFake('model', 'enqueue', { toolCalls: [{ name: 'schedule', arguments: { action: 'create', prompt: 'Tell the team the news.', delay_seconds: 1, name: 'news' } }] }, { text: 'Scheduled.' }, { text: 'Never sent.' });
    await say(group, admin, 'tell the team the news in a second', (reply) => reply === 'Scheduled.');
    const refusal = await eventually(() => texts(group), (list) => list.some((text) => text.startsWith('Not answered')), answerMs);
    expect(refusal.filter((text) => text.startsWith('Not answered'))).toEqual(["Not answered: this job run's spending cap of $0.3000 is reached ($0.00 spent, $0.00 in calls under way)."]);
    expect(await modelRequests()).toBe(2);
  });

  it('refuses every call, and tells the person, when the spend object cannot be reached', { timeout: testTimeout }, async () => {
    const group = -100_944;
    await approveGroup({ platform: 'telegram', kind: 'group', id: String(group) }, 'telegram:4242');
    await callFake('model', 'reset');
    const stub = workerEnv.CONVERSATIONS.get(workerEnv.CONVERSATIONS.idFromName(`telegram:group:${group}`));
    // The conversation's object sees a spend binding that throws (as when it is missing or broken).
    await runInDurableObject(stub, (instance) => {
      const object = instance as unknown as { env: WorkerEnv };
      object.env = { ...object.env, SPEND: unreachable };
    });
    try {
      await callFake('model', 'enqueue', { text: 'Never sent.' });
      expect(await say(group, bea, 'hello', (reply) => reply.startsWith('Not answered'))).toBe(spendUnreachableText);
      expect(await modelRequests()).toBe(0);
    } finally {
      // Made again from its storage, with the Worker's own bindings.
      await runInDurableObject(stub, (_instance, state) => state.abort('the test is done with it')).catch(() => undefined);
      await callFake('model', 'reset');
    }
  });
});

/** A spend binding that throws at once. */
const unreachable = {
  idFromName: () => {
    throw new Error('no such binding');
  },
} as unknown as WorkerEnv['SPEND'];

/** A spend binding whose object answers every call with an error. */
const failing = {
  idFromName: () => 'spend',
  get: () => ({ reserve: () => Promise.reject(new Error('Durable Object is overloaded')) }),
} as unknown as WorkerEnv['SPEND'];

describe("the Worker's agent and its spend gate", () => {
  const turn = { sessionKey: 'telegram:group:-100945', platform: 'telegram', senderId: '9402', admin: false, scheduled: false };
  const agentWith = (changed: Partial<WorkerEnv>) =>
    createConversationAgent({ env: { ...workerEnv, ...changed }, store: createStore({ storage: createStorage() }), sessionKey: turn.sessionKey });

  it('refuses the call when the spend object answers with an error (fail closed)', async () => {
    await callFake('model', 'reset');
    await callFake('model', 'enqueue', { text: 'Never sent.' });
    const error = await agentWith({ SPEND: failing }).invoke('hello', { turn }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(BudgetExhaustedError);
    expect(failureReply(error)).toBe(spendUnreachableText);
    expect(await modelRequests()).toBe(0);
  });

  it('refuses every call while OPERATOR_BUDGETS is invalid, saying what is wrong', async () => {
    await callFake('model', 'reset');
    await callFake('model', 'enqueue', { text: 'Never sent.' });
    const error = await agentWith({ OPERATOR_BUDGETS: '{"person":{"day":-1}}' }).invoke('hello', { turn }).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(failureReply(error)).toBe("Not answered: OPERATOR_BUDGETS is not valid: OPERATOR_BUDGETS.person.day: must be at least 0. Please let the bot's admin know.");
    expect(await modelRequests()).toBe(0);
  });

  it('reads OPERATOR_BUDGETS with the schema of operator.json', () => {
    const valid = parseBudgets('{"gateway":{"day":20},"person":{"day":2}}');
    expect('budgets' in valid && [valid.budgets.gateway.day, valid.budgets.person.day, valid.budgets.conversation.day]).toEqual([20, 2, undefined]);
    expect(parseBudgets(undefined)).toEqual(parseBudgets('  '));
    expect(parseBudgets('{person:')).toEqual({ problem: 'OPERATOR_BUDGETS is not valid JSON (it holds the budgets section of operator.json, e.g. {"person":{"day":2}})' });
    expect(parseBudgets('{"persons":{"day":2}}')).toEqual({ problem: 'OPERATOR_BUDGETS is not valid: OPERATOR_BUDGETS.persons: unknown setting; did you mean person? (see operator.schema.json)' });
  });
});

describe('the spend object', () => {
  const line = (scope: string) => ({ scope, period: 'day' as const, cap: 1 });
  const longHold = 10 * 60_000;

  it('lets a reservation whose settle never comes go when its time is up, and still counts a late settle', async () => {
    const spend = spendObject(workerEnv);
    const held = await spend.reserve({ lines: [line('person test:held')], amount: 0.8, holdMs: longHold });
    expect('id' in held).toBe(true);
    const refused = await spend.reserve({ lines: [line('person test:held')], amount: 0.8, holdMs: longHold });
    expect(refused).toEqual({ refusal: { line: line('person test:held'), spent: 0, reserved: 0.8 } });

    const lines = [line('person test:expired')];
    const lost = await spend.reserve({ lines, amount: 0.8, holdMs: 1 });
    if (!('id' in lost)) throw new Error('not reserved');
    // Its isolate "died": no settle. Once its hold is over, the cap is free again.
    const next = await eventually(
      async (): Promise<{ id: string } | { refusal: unknown } | { paused: true }> => spend.reserve({ lines, amount: 0.8, holdMs: longHold }),
      (answer) => 'id' in answer,
    );
    if (!('id' in next)) throw new Error(`still held: ${JSON.stringify(next)}`);
    // The lost call's settle comes after all: its cost counts, though its hold is gone.
    await spend.settle(lost.id, lines, 0.15);
    await spend.settle(next.id, lines, 0.05);
    expect((await spend.spent([{ scope: 'person test:expired', period: 'day' }]))[0]).toBeCloseTo(0.2, 10);
  });

  it('keeps reservations in storage: one made before the object was evicted still holds', async () => {
    const lines = [line('person test:evicted')];
    const held = await spendObject(workerEnv).reserve({ lines, amount: 0.8, holdMs: longHold });
    if (!('id' in held)) throw new Error('not reserved');
    await runInDurableObject(spendObject(workerEnv), (_instance, state) => state.abort('evicted by the test')).catch(() => undefined);
    const spend = spendObject(workerEnv);
    expect(await spend.reserve({ lines, amount: 0.8, holdMs: longHold })).toEqual({ refusal: { line: lines[0], spent: 0, reserved: 0.8 } });
    await spend.settle(held.id, lines, 0.1);
    expect('id' in (await spend.reserve({ lines, amount: 0.8, holdMs: longHold }))).toBe(true);
  });

  it("sweeps past days' and months' counters (and notes of notices given), keeping the current ones", async () => {
    const stub = spendObject(workerEnv);
    const today = `spend:${keySegment('person test:swept')}:${periodOf('day', new Date())}`;
    const month = `spend:${keySegment('gateway')}:${periodOf('month', new Date())}`;
    // A counter, a raise and a notice's note of past periods.
    const past = [`spend:${keySegment('person test:swept')}:2020-01-31`, `spend:${keySegment('gateway')}:2020-01`, `spend-raise:${keySegment('person test:swept')}:2020-01-31`, `spend-warned:${keySegment('person test:swept')}:2020-01-31`];
    await runInDurableObject(stub, async (_instance, state) => {
      // Written as the book writes them.
      const store = objectStore(state.storage);
      for (const key of [today, month, ...past]) await store.set(key, 0.5);
      await state.storage.setAlarm(Date.now() + 60_000);
    });
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    await runInDurableObject(stub, async (_instance, state) => {
      const store = objectStore(state.storage);
      for (const key of past) expect(await store.get(key), key).toBeNull();
      expect(await store.get(today)).toBe(0.5);
      expect(await store.get(month)).toBe(0.5);
      // The next sweep is due after the next UTC midnight.
      expect(await state.storage.getAlarm()).toBeGreaterThan(Date.now());
    });
  });
});

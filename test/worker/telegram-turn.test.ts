/**
 * A Telegram conversation on Workers, end to end inside workerd: the webhook takes the update,
 * the conversation's object runs the turn at once with the fake model (its stored alarm the
 * safety net should the object stop first), and the answer reaches the fake Bot API, once.
 */
import { env, runDurableObjectAlarm, runInDurableObject } from 'cloudflare:test';
import { beforeEach, describe, expect, it } from 'vitest';
import { callFake, eventually, readFake } from './support/fakes.ts';
import { freshObject } from './support/objects.ts';
import { postTelegramMessage } from './support/telegram.ts';

interface SentMessage {
  messageId: number;
  text: string;
}

let nextUpdate = 900_000;

/** Posts a private message from `chatId` to the Worker's webhook, as Telegram would; resolves to the status. */
const postMessage = (chatId: number, text: string, updateId = ++nextUpdate) => postTelegramMessage({ updateId, text, from: { id: chatId, name: 'Ada' } });

const messagesIn = (chatId: number) => callFake<SentMessage[]>('telegram', 'messages', chatId);

describe('a Telegram conversation on Workers', () => {
  beforeEach(async () => {
    await callFake('model', 'reset');
  });

  it('answers a message through the fake model and the Bot API', async () => {
    await callFake('model', 'enqueue', { text: 'Hello from the edge' });
    expect(await postMessage(4242, 'hi there')).toBe(200);
    const messages = await eventually(() => messagesIn(4242), (list) => list.some((message) => message.text === 'Hello from the edge'));
    expect(messages.map((message) => message.text)).toContain('Hello from the edge');
  });
});

describe('nothing lost, nothing twice, on Workers', () => {
  beforeEach(async () => {
    await callFake('model', 'reset');
  });

  it('answers a redelivered update once', async () => {
    await callFake('model', 'enqueue', { text: 'Only once' });
    const updateId = ++nextUpdate;
    expect(await postMessage(4242, 'are you there?', updateId)).toBe(200);
    expect(await postMessage(4242, 'are you there?', updateId)).toBe(200);
    await eventually(() => messagesIn(4242), (list) => list.some((message) => message.text === 'Only once'));
    // A second answer would have come by the time a second turn could have run.
    expect(await postMessage(4242, 'and now?')).toBe(200);
    const messages = await eventually(() => messagesIn(4242), (list) => list.some((message) => message.text === 'ok'));
    expect(messages.filter((message) => message.text === 'Only once')).toHaveLength(1);
    expect((await readFake<{ body: { messages: unknown[] } }[]>('model', 'requests')).length).toBe(2);
  });

  it('queues a message that comes during a running turn and answers it next', async () => {
    const chat = 4242;
    await callFake('model', 'enqueue', { text: 'First answer', delayMs: 150 }, { text: 'Second answer' });
    expect(await postMessage(chat, 'first question')).toBe(200);
    await eventually(() => readFake<unknown[]>('model', 'requests'), (requests) => requests.length === 1);
    expect(await postMessage(chat, 'second question')).toBe(200);
    const messages = await eventually(() => messagesIn(chat), (list) => list.some((message) => message.text === 'Second answer'));
    expect(messages.map((message) => message.text).filter((text) => text.endsWith('answer'))).toEqual(['First answer', 'Second answer']);
    const requests = await readFake<{ rawBody: string }[]>('model', 'requests');
    expect(requests).toHaveLength(2);
    expect(requests[0]!.rawBody).not.toContain('second question');
    expect(requests[1]!.rawBody).toContain('second question');
  });

  it('goes on after its object is reset mid-turn, answering once', async () => {
    const chat = 4242;
    const objectOf = () => env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(`telegram:dm:${chat}`));
    // The first attempt is cut off while the model answers; the second gets the answer.
    await callFake('model', 'enqueue', { text: 'Cut off', hangMs: 5_000 }, { text: 'After the restart' });
    expect(await postMessage(chat, 'a question before an eviction')).toBe(200);
    await eventually(() => readFake<unknown[]>('model', 'requests'), (requests) => requests.length === 1);
    // As when the platform evicts or restarts an object: its memory is gone, its storage stays.
    await runInDurableObject(objectOf(), (_instance, state) => {
      state.abort('evicted by the test');
    }).catch(() => undefined);
    // A stub of the old instance is broken with it; a new one reaches the object made again.
    const stub = objectOf();
    expect((await stub.waiting()).map((message) => message.text)).toEqual(['a question before an eviction']);
    // The safety-net alarm stored with the message wakes it (run now rather than 30 s later).
    expect(await runDurableObjectAlarm(stub)).toBe(true);
    const messages = await eventually(() => messagesIn(chat), (list) => list.some((message) => message.text === 'After the restart'));
    expect(messages.filter((message) => message.text === 'After the restart')).toHaveLength(1);
    expect(messages.some((message) => message.text === 'Cut off')).toBe(false);
    expect(await stub.waiting()).toEqual([]);
    // The session holds the question once, and the answer.
    const requests = await readFake<{ rawBody: string }[]>('model', 'requests');
    expect(requests).toHaveLength(2);
    expect(requests[1]!.rawBody.split('a question before an eviction').length - 1).toBe(1);
  });
});

describe("a conversation's alarm on Workers", () => {
  // The admin's chat (anyone else would be given a pairing code).
  const chat = 4242;
  const objectOf = () => env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(`telegram:dm:${chat}`));
  const alarmOf = () => runInDurableObject(objectOf(), (_instance, state) => state.storage.getAlarm());

  beforeEach(async () => {
    await callFake('model', 'reset');
    // No job another file made in the admin's chat: its alarm would be this object's too.
    await freshObject(`telegram:dm:${chat}`);
  });

  it('is set no later than 30 s ahead with a message, even when a later one (a job) was set', async () => {
    const later = Date.now() + 3_600_000;
    await runInDurableObject(objectOf(), (_instance, state) => state.storage.setAlarm(later));
    await callFake('model', 'enqueue', { text: 'Answered at once' });
    const posted = Date.now();
    expect(await postMessage(chat, 'is the net there?')).toBe(200);
    const messages = await eventually(() => messagesIn(chat), (list) => list.some((message) => message.text === 'Answered at once'));
    expect(messages.some((message) => message.text === 'Answered at once')).toBe(true);
    const alarm = await alarmOf();
    expect(alarm).not.toBeNull();
    expect(alarm!).toBeGreaterThanOrEqual(posted);
    expect(alarm!).toBeLessThanOrEqual(Date.now() + 30_000);
  });

  it('left behind by a turn that ended well, runs once, asks nothing and lets the object sleep', async () => {
    await callFake('model', 'enqueue', { text: 'Done here' });
    expect(await postMessage(chat, 'one question')).toBe(200);
    const messages = await eventually(() => messagesIn(chat), (list) => list.some((message) => message.text === 'Done here'));
    expect(messages.some((message) => message.text === 'Done here')).toBe(true);
    const asked = (await readFake<unknown[]>('model', 'requests')).length;
    const sent = (await messagesIn(chat)).length;
    expect(await runDurableObjectAlarm(objectOf())).toBe(true);
    expect(await alarmOf()).toBeNull();
    expect(await runDurableObjectAlarm(objectOf())).toBe(false);
    expect(await readFake<unknown[]>('model', 'requests')).toHaveLength(asked);
    expect(await messagesIn(chat)).toHaveLength(sent);
  });
});

describe('who may talk, on Workers', () => {
  it('gives a stranger a pairing code and no answer; an admin approves it with /pair', async () => {
    await callFake('model', 'reset');
    const stranger = 5151;
    expect(await postMessage(stranger, 'hello?')).toBe(200);
    const told = await eventually(() => messagesIn(stranger), (list) => list.length > 0);
    expect(told[0]!.text).toContain('pairing code');
    const code = /\n([A-Z0-9]{6,})\n/.exec(told[0]!.text)?.[1];
    expect(code).toBeDefined();
    expect(await readFake<unknown[]>('model', 'requests')).toEqual([]);
    // A non-admin cannot approve (the stranger themself).
    expect(await postMessage(stranger, `/pair ${code}`)).toBe(200);
    await eventually(() => messagesIn(stranger), (list) => list.length >= 2);
    // The admin can.
    expect(await postMessage(4242, `/pair ${code}`)).toBe(200);
    // Other tests approve people from the admin's chat too: this approval is the one naming the stranger.
    const approved = (message: SentMessage) => message.text.startsWith('Approved') && message.text.includes(`telegram:${stranger}`);
    const adminSees = await eventually(() => messagesIn(4242), (list) => list.some(approved));
    expect(adminSees.some(approved)).toBe(true);
    await callFake('model', 'enqueue', { text: 'Welcome aboard' });
    expect(await postMessage(stranger, 'may I talk now?')).toBe(200);
    await eventually(() => messagesIn(stranger), (list) => list.some((message) => message.text === 'Welcome aboard'));
    // Reloading the resources (from KV) is for admins: the paired person is refused, the admin is not.
    expect(await postMessage(stranger, '/reload')).toBe(200);
    await eventually(() => messagesIn(stranger), (list) => list.some((message) => message.text === 'Only an admin of this bot may reload.'));
    expect(await postMessage(4242, '/reload')).toBe(200);
    await eventually(() => messagesIn(4242), (list) => list.some((message) => message.text.startsWith('Reloaded:')));
  });

  it('tells the person a model failure once, in plain words', async () => {
    await callFake('model', 'reset');
    await callFake('model', 'setDefault', { error: { status: 401, message: 'invalid x-api-key' } });
    try {
      expect(await postMessage(4242, 'this will fail')).toBe(200);
      const messages = await eventually(() => messagesIn(4242), (list) => list.some((message) => message.text.includes('admin')));
      const told = messages.filter((message) => message.text.includes('admin'));
      expect(told).toHaveLength(1);
      expect(told[0]!.text).not.toContain('sk-ant-test');
    } finally {
      await callFake('model', 'reset');
    }
  });
});

/**
 * Scheduled follow-ups on Workers: the agent's `schedule` tool makes a job in its conversation's
 * object, and the object's alarm fires it; the answer reaches the chat. The tool is anyone's the
 * bot talks with (a stranger never reaches the agent), for their own conversation only.
 */
import { env } from 'cloudflare:test';
import { expect, it } from 'vitest';
import { callFake, eventually, readFake } from './support/fakes.ts';
import { postTelegramMessage } from './support/telegram.ts';

interface SentMessage {
  text: string;
}

it('fires a job the agent scheduled from the conversation object alarm, in its conversation', async () => {
  await callFake('model', 'reset');
  await callFake(
    'model',
    'enqueue',
    { toolCalls: [{ name: 'schedule', arguments: { action: 'create', prompt: 'Remind Ada to stretch.', delay_seconds: 1, name: 'stretch' } }] },
    { text: 'I will remind you in a second.' },
    { text: 'Time to stretch, Ada!' },
  );
  expect(await postTelegramMessage({ updateId: 880_001, text: 'remind me to stretch in a second', from: { id: 4242, name: 'Ada' } })).toBe(200);
  const messages = await eventually(
    () => callFake<SentMessage[]>('telegram', 'messages', 4242),
    (list) => list.some((message) => message.text === 'Time to stretch, Ada!'),
  );
  expect(messages.map((message) => message.text)).toEqual(expect.arrayContaining(['I will remind you in a second.', 'Time to stretch, Ada!']));
  const requests = await readFake<{ rawBody: string }[]>('model', 'requests');
  // The job's turn reads as a scheduled follow-up with its prompt, not as a person's message.
  expect(requests[2]!.rawBody).toContain('scheduled follow-up');
  expect(requests[2]!.rawBody).toContain('Remind Ada to stretch.');
  // The job ran once and is done (a one-time job); nothing is left waiting.
  const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName('telegram:dm:4242'));
  expect(await stub.waiting()).toEqual([]);
});

it("lets a paired person who is not an admin schedule in their own conversation, and nowhere else", async () => {
  const person = 6262;
  const messagesOf = (chat: number) => callFake<SentMessage[]>('telegram', 'messages', chat);
  await callFake('model', 'reset');
  // Paired the way a stranger is: a code, approved by the admin with /pair.
  expect(await postTelegramMessage({ updateId: 880_101, text: 'hello', from: { id: person, name: 'Bo' } })).toBe(200);
  const told = await eventually(() => messagesOf(person), (list) => list.some((message) => message.text.includes('pairing code')));
  const code = /\n([A-Z0-9]{6,})\n/.exec(told.find((message) => message.text.includes('pairing code'))?.text ?? '')?.[1];
  expect(code).toBeDefined();
  expect(await postTelegramMessage({ updateId: 880_102, text: `/pair ${code}`, from: { id: 4242, name: 'Ada' } })).toBe(200);
  await eventually(() => messagesOf(4242), (list) => list.some((message) => message.text.includes(`telegram:${person}`)));

  await callFake(
    'model',
    'enqueue',
    // Somewhere else first: refused, said to the model; then in this conversation.
    { toolCalls: [{ name: 'schedule', arguments: { action: 'create', prompt: 'Tell the admin hello.', delay_seconds: 1, name: 'elsewhere', deliver: 'telegram:4242' } }] },
    { toolCalls: [{ name: 'schedule', arguments: { action: 'create', prompt: 'Remind Bo to drink water.', delay_seconds: 1, name: 'water' } }] },
    { text: 'Done: in a second.' },
    { text: 'Water time, Bo!' },
  );
  const adminBefore = (await messagesOf(4242)).length;
  expect(await postTelegramMessage({ updateId: 880_103, text: 'remind me to drink water in a second', from: { id: person, name: 'Bo' } })).toBe(200);
  const messages = await eventually(() => messagesOf(person), (list) => list.some((message) => message.text === 'Water time, Bo!'));
  expect(messages.map((message) => message.text)).toEqual(expect.arrayContaining(['Done: in a second.', 'Water time, Bo!']));
  const requests = await readFake<{ rawBody: string }[]>('model', 'requests');
  // The refusal reached the model as the tool's result.
  expect(requests[1]!.rawBody).toContain('runs in the conversation that made it');
  // No job was made elsewhere: after longer than its delay, the model was asked four times (the
  // turn's three calls and the water job's), and nothing more reached the admin's chat.
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  expect(await readFake<unknown[]>('model', 'requests')).toHaveLength(4);
  expect(await messagesOf(4242)).toHaveLength(adminBefore);
});

/**
 * Scheduled follow-ups on Workers: the agent's `schedule` tool makes a job in its conversation's
 * object, and the object's alarm fires it; the answer reaches the chat.
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

/**
 * A provider slow to answer, on Workers: after `OPERATOR_MODEL_NOTIFY_AFTER_SECONDS` (10 s in these
 * tests' bindings) of silence the person sees that it is slow in the reply's draft (a private chat
 * on a Bot API that takes drafts), and the answer takes its place when it comes: one message, never
 * edited, the notice never sent as one.
 */
import { expect, it } from 'vitest';
import { slowModelText } from '../../src/gateway/slow-model-notice.ts';
import { callFake, eventually, readFake } from './support/fakes.ts';
import { postTelegramMessage } from './support/telegram.ts';

interface SentMessage {
  messageId: number;
  text: string;
  edits: number;
}

it('tells the person in the draft that the provider is slow, then the answer takes its place', async () => {
  const person = { id: 4242, name: 'Ada' };
  await callFake('model', 'reset');
  // The fakes serve every test file: only what this test's turn did is counted.
  const before = (await callFake<SentMessage[]>('telegram', 'messages', person.id)).length;
  const callsBefore = (await readFake<unknown[]>('telegram', 'calls')).length;
  await callFake('model', 'enqueue', { text: 'Here it is, after a while.', hangMs: 11_500 });
  expect(await postTelegramMessage({ updateId: 970_001, text: 'what is the plan?', from: person })).toBe(200);
  const messages = await eventually(() => callFake<SentMessage[]>('telegram', 'messages', person.id), (list) => list.some((message) => message.text === 'Here it is, after a while.'), 25_000);
  const calls = (await readFake<{ method: string; params: { text?: string } }[]>('telegram', 'calls')).slice(callsBefore);
  const notices = (method: string) => calls.filter((call) => call.method === method && Number((call.params as { chat_id?: unknown }).chat_id) === person.id && call.params.text?.includes(slowModelText));
  // The notice was shown in the draft, never sent or edited into a message.
  expect(notices('sendMessageDraft').length).toBeGreaterThan(0);
  expect([...notices('sendMessage'), ...notices('editMessageText')]).toHaveLength(0);
  const added = messages.slice(before);
  expect(added).toHaveLength(1);
  expect(added[0]!.text).toBe('Here it is, after a while.');
  // Sent as the draft ended (a noted preview) and finished by one edit: a restart repeats the edit, never the message.
  expect(added[0]!.edits).toBe(1);
}, 40_000);

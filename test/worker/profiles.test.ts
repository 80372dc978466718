/**
 * Profiles on Workers: `/profile` shows a conversation's, a person chooses one for their own
 * direct conversation, an admin for a group's (anyone else there is refused), and only a profile
 * uploaded with `operator deploy resources` can be chosen. The next turn answers with it.
 */
import { env } from 'cloudflare:test';
import { expect, inject, it } from 'vitest';
import { callFake, eventually, readFake } from './support/fakes.ts';
import { approveGroup } from './support/groups.ts';
import { postTelegramMessage } from './support/telegram.ts';

let updateId = 770_000;
const admin = { id: 4242, name: 'Ada' };
const member = { id: 7171, name: 'Bea' };
const messagesIn = (chat: number) => callFake<{ text: string }[]>('telegram', 'messages', chat);

/** Posts `text` and resolves to the bot's reply to it there (the first new message whose text `expected` matches). */
async function ask(text: string, from: { id: number; name: string }, expected: (reply: string) => boolean, group?: number): Promise<string | undefined> {
  const chat = group ?? from.id;
  const before = (await messagesIn(chat)).length;
  expect(await postTelegramMessage({ updateId: ++updateId, text, from, ...(group !== undefined && { group }) })).toBe(200);
  const messages = await eventually(() => messagesIn(chat), (list) => list.slice(before).some((message) => expected(message.text)));
  return messages.slice(before).find((message) => expected(message.text))?.text;
}

it("lets a person choose their conversation's profile and an admin a group's; refuses the rest", async () => {
  if (!env.RESOURCES) throw new Error('wrangler.toml binds no RESOURCES namespace');
  for (const { key, value } of inject('resourceEntries').first) await env.RESOURCES.put(key, value);
  await callFake('model', 'reset');

  expect(await ask('/profile', admin, (reply) => reply.startsWith('Profile:'))).toBe('Profile: default');
  const refused = await ask('/profile nosuch', admin, (reply) => reply.startsWith('There is no profile'));
  expect(refused).toContain('"nosuch"');
  expect(refused).toContain('default, quill');
  expect(await ask('/profile quill', admin, (reply) => reply.startsWith('Profile is now'))).toBe('Profile is now quill.');
  expect(await ask('/profile', admin, (reply) => reply.startsWith('Profile:'))).toBe('Profile: quill');

  await callFake('model', 'enqueue', { text: 'Quill speaking.' });
  expect(await ask('who are you?', admin, (reply) => reply === 'Quill speaking.')).toBe('Quill speaking.');
  const requests = await readFake<{ rawBody: string }[]>('model', 'requests');
  expect(requests.at(-1)!.rawBody).toContain('You are Quill, the release manager of the Acme team.');

  // In a group, choosing is an admin's (a group an admin approved: groupPolicy approval is the default).
  const group = -100_999;
  await approveGroup({ platform: 'telegram', kind: 'group', id: String(group) }, 'telegram:4242');
  expect(await ask('/profile quill', member, (reply) => reply.includes('profile of a group'), group)).toBe('Only an admin can choose the profile of a group.');
  expect(await ask('/profile', member, (reply) => reply.startsWith('Profile:'), group)).toBe('Profile: default');
  expect(await ask('/profile quill', admin, (reply) => reply.startsWith('Profile is now'), group)).toBe('Profile is now quill.');
  expect(await ask('/profile', member, (reply) => reply.startsWith('Profile:'), group)).toBe('Profile: quill');

  // A stranger's /profile is a message like any other from them: a pairing code, no choice.
  const told = await ask('/profile quill', member, (reply) => reply.includes('pairing code'));
  const code = /\n([A-Z0-9]{6,})\n/.exec(told ?? '')?.[1];
  expect(code).toBeDefined();
  // Once paired, the person chooses for their own direct conversation.
  expect(await ask(`/pair ${code}`, admin, (reply) => reply.startsWith('Approved'))).toContain(`telegram:${member.id}`);
  expect(await ask('/profile', member, (reply) => reply.startsWith('Profile:'))).toBe('Profile: default');
  expect(await ask('/profile quill', member, (reply) => reply.startsWith('Profile is now'))).toBe('Profile is now quill.');
});

it('runs a job with the profile it was made with, after the conversation chose another (as on Node)', async () => {
  if (!env.RESOURCES) throw new Error('wrangler.toml binds no RESOURCES namespace');
  for (const { key, value } of inject('resourceEntries').first) await env.RESOURCES.put(key, value);
  await callFake('model', 'reset');
  expect(await ask('/profile default', admin, (reply) => reply.startsWith('Profile is now'))).toBe('Profile is now default.');
  await callFake(
    'model',
    'enqueue',
    { toolCalls: [{ name: 'schedule', arguments: { action: 'create', prompt: 'Remind Ada of the standup.', delay_seconds: 2, name: 'standup' } }] },
    { text: 'In two seconds.' },
    { text: 'Standup now, Ada.' },
    { text: 'Quill again.' },
  );
  expect(await ask('remind me of the standup in two seconds', admin, (reply) => reply === 'In two seconds.')).toBe('In two seconds.');
  // Chosen before the job fires: the job keeps the default profile it was made with.
  expect(await ask('/profile quill', admin, (reply) => reply.startsWith('Profile is now'))).toBe('Profile is now quill.');
  const standup = await eventually(() => messagesIn(admin.id), (list) => list.some((message) => message.text === 'Standup now, Ada.'));
  expect(standup.some((message) => message.text === 'Standup now, Ada.')).toBe(true);
  expect(await ask('and now?', admin, (reply) => reply === 'Quill again.')).toBe('Quill again.');

  const requests = await readFake<{ rawBody: string }[]>('model', 'requests');
  const [made, , job, after] = requests.map((request) => request.rawBody);
  const quill = 'You are Quill, the release manager of the Acme team.';
  expect(made).not.toContain(quill);
  expect(job).toContain('Remind Ada of the standup.');
  expect(job).not.toContain(quill);
  // The conversation's own turns are Quill's again, and see the job's turn in their history.
  expect(after).toContain(quill);
  expect(after).toContain('Standup now, Ada.');
});

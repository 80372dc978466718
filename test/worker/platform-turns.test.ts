/**
 * Turns on Workers from each webhook platform to its answer, inside workerd: a Slack message and a
 * Discord slash command answered by the fake model through their platforms' fakes, and a Telegram
 * group where the bot answers only what is addressed to it, with the rest as context.
 */
import { SELF } from 'cloudflare:test';
import { beforeEach, expect, it } from 'vitest';
import { callFake, eventually, readFake } from './support/fakes.ts';
import { approveGroup } from './support/groups.ts';
import { postSlackEvent } from './support/slack.ts';
import { postTelegramMessage } from './support/telegram.ts';

beforeEach(async () => {
  await callFake('model', 'reset');
});

it('answers a Slack direct message through the fake model and the Slack Web API', async () => {
  await callFake('model', 'enqueue', { text: 'Hello from Slack on Workers' });
  const event = await callFake<Record<string, unknown>>('slack', 'personMessage', { channel: 'D0WRKTURN1', text: 'hi from Slack', from: { id: 'U0WRKTURN1', name: 'Ada' } });
  expect(await postSlackEvent(event)).toBe(200);
  const messages = await eventually(() => callFake<{ text: string }[]>('slack', 'botMessages', 'D0WRKTURN1'), (list) => list.some((message) => message.text === 'Hello from Slack on Workers'));
  expect(messages.filter((message) => message.text === 'Hello from Slack on Workers')).toHaveLength(1);
});

it('answers a Discord slash command by editing its deferred reply', async () => {
  await callFake('model', 'enqueue', { text: 'Hello from Discord on Workers' });
  const world = await readFake<{ channelId: string; guildId: string }>('discord', 'world');
  // A server an admin approved (groupPolicy approval is the default; Discord names nobody who added the bot).
  await approveGroup({ platform: 'discord', kind: 'guild', id: world.guildId }, 'telegram:4242');
  const { payload } = await callFake<{ payload: { id: string } }>('discord', 'slashCommand', { channelId: world.channelId, name: 'ask', args: 'hi from Discord' });
  const signed = await callFake<{ body: string; headers: Record<string, string> }>('discord', 'signedInteraction', payload);
  const response = await SELF.fetch('http://example.com/webhooks/discord', { method: 'POST', headers: signed.headers, body: signed.body });
  expect(await response.json()).toEqual({ type: 5 });
  await callFake('discord', 'endpointAnswered', payload.id, { type: 5 });
  const messages = await eventually(
    () => callFake<{ message: { content: string } }[]>('discord', 'botMessages', world.channelId),
    (list) => list.some((stored) => stored.message.content === 'Hello from Discord on Workers'),
  );
  expect(messages.filter((stored) => stored.message.content === 'Hello from Discord on Workers')).toHaveLength(1);
  const requests = await readFake<{ rawBody: string }[]>('model', 'requests');
  expect(requests.at(-1)!.rawBody).toContain('hi from Discord');
  // `/ask` is how Discord people talk on Workers: the model gets the text, not the command.
  expect(requests.at(-1)!.rawBody).not.toContain('/ask');
});

it('answers in a Telegram group only when addressed, with what it overheard as context', async () => {
  const group = -100_777;
  await approveGroup({ platform: 'telegram', kind: 'group', id: String(group) }, 'telegram:4242');
  let updateId = 990_000;
  const post = (text: string, from: { id: number; name: string }) => postTelegramMessage({ updateId: ++updateId, text, from, group });
  expect(await post('the deploy is broken again', { id: 61, name: 'Bea' })).toBe(200);
  const username = await readFake<{ username: string }>('telegram', 'bot');
  await callFake('model', 'enqueue', { text: 'I saw that: let us look at the deploy.' });
  expect(await post(`@${username.username} what do you think?`, { id: 62, name: 'Cy' })).toBe(200);
  const messages = await eventually(() => callFake<{ text: string }[]>('telegram', 'messages', group), (list) => list.length > 0);
  expect(messages.map((message) => message.text)).toEqual(['I saw that: let us look at the deploy.']);
  const requests = await readFake<{ rawBody: string }[]>('model', 'requests');
  // One model call: the unaddressed message was not answered, but rode along with the next.
  expect(requests).toHaveLength(1);
  // Each message labelled with its sender's name and stable id, the one answered marked.
  expect(requests[0]!.rawBody).toContain('[Bea · telegram:61]: the deploy is broken again');
  expect(requests[0]!.rawBody).toContain('[Cy · telegram:62] (speaker): what do you think?');
});

it("labels a Slack channel message with the name users.info gives its sender (Slack's events carry none)", async () => {
  const channel = 'C0WRKNAME1';
  await approveGroup({ platform: 'slack', kind: 'channel', id: channel }, 'slack:U0WRKTURN1');
  const bot = await readFake<{ userId: string }>('slack', 'bot');
  await callFake('model', 'enqueue', { text: 'Noted, Dee.' });
  const event = await callFake<Record<string, unknown>>('slack', 'personMessage', { channel, text: `<@${bot.userId}> the release is on friday`, from: { id: 'U0WRKNAME1', name: 'Dee Named' } });
  expect(await postSlackEvent(event)).toBe(200);
  await eventually(() => callFake<{ text: string }[]>('slack', 'botMessages', channel), (list) => list.some((message) => message.text === 'Noted, Dee.'));
  const requests = await readFake<{ rawBody: string }[]>('model', 'requests');
  expect(requests.at(-1)!.rawBody).toContain('[Dee Named · slack:U0WRKNAME1] (speaker): the release is on friday');
});

it('lets only the person being answered (or an admin) stop an answer in a group, and only admins start anew there', async () => {
  const group = -100_888;
  await approveGroup({ platform: 'telegram', kind: 'group', id: String(group) }, 'telegram:4242');
  let updateId = 995_000;
  const post = (text: string, from: { id: number; name: string }) => postTelegramMessage({ updateId: ++updateId, text, from, group });
  const { username } = await readFake<{ username: string }>('telegram', 'bot');
  await callFake('model', 'enqueue', { text: 'Here is the whole answer.', hangMs: 1_500 });
  expect(await post(`@${username} summarise the thread`, { id: 71, name: 'Bea' })).toBe(200);
  await eventually(() => readFake<unknown[]>('model', 'requests'), (requests) => requests.length === 1);
  // Someone else in the group cannot stop Bea's answer.
  expect(await post('/stop', { id: 72, name: 'Cy' })).toBe(200);
  const messages = await eventually(() => callFake<{ text: string }[]>('telegram', 'messages', group), (list) => list.some((message) => message.text === 'Here is the whole answer.'));
  expect(messages.some((message) => message.text === 'Stopped.')).toBe(false);
  // Nor start the group's conversation anew.
  expect(await post('/new', { id: 72, name: 'Cy' })).toBe(200);
  await eventually(() => callFake<{ text: string }[]>('telegram', 'messages', group), (list) => list.some((message) => message.text === 'In a group, only an admin may start a new conversation.'));
  // The person being answered can stop their own answer.
  await callFake('model', 'enqueue', { text: 'This answer is never finished.', hangMs: 5_000 });
  expect(await post(`@${username} and now a long one`, { id: 71, name: 'Bea' })).toBe(200);
  await eventually(() => readFake<unknown[]>('model', 'requests'), (requests) => requests.length === 2);
  expect(await post('/stop', { id: 71, name: 'Bea' })).toBe(200);
  const after = await eventually(() => callFake<{ text: string }[]>('telegram', 'messages', group), (list) => list.some((message) => message.text === 'Stopped.'));
  expect(after.some((message) => message.text === 'This answer is never finished.')).toBe(false);
});

/**
 * Messages their senders edit, on Workers inside workerd (`OPERATOR_EDITED_MESSAGES=reanswer`,
 * given to the webhooks over the tests' Worker's variables; its objects take what the webhooks
 * hand over): a message edited while it waits behind a running turn is answered in its new
 * wording, once, in a direct chat and in a group (after what was overheard there), from Telegram
 * and from Slack; an edit of a message whose turn has read it (or begun), that was answered, or
 * that was a command changes nothing; without the setting an edit is acknowledged and changes
 * nothing.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { beforeEach, describe, expect, it } from 'vitest';
import type { InboundMessage } from '../../src/channels/types.ts';
import { createInbox } from '../../src/gateway/inbox.ts';
import { takeWorkerEdit } from '../../src/worker/edited-entry.ts';
import { objectStore } from '../../src/worker/object-store.ts';
import type { WorkerEnv } from '../../src/worker/worker-env.ts';
import { callFake, eventually, readFake } from './support/fakes.ts';
import { approveGroup } from './support/groups.ts';
import { postSlackEvent } from './support/slack.ts';
import { postTelegramUpdate } from './support/telegram.ts';

const reanswer: Partial<WorkerEnv> = { OPERATOR_EDITED_MESSAGES: 'reanswer' };

interface TelegramMessage {
  message_id: number;
  text?: string;
  entities?: unknown[];
}

const requests = () => readFake<{ rawBody: string }[]>('model', 'requests');
const texts = (chatId: number) => callFake<{ text: string }[]>('telegram', 'messages', chatId).then((list) => list.map((message) => message.text));

/** The text the model was given last in request `rawBody` (the person's message of the turn). */
function lastUserText(rawBody: string): string {
  const { messages } = JSON.parse(rawBody) as { messages: { role: string; content: string | { type: string; text?: string }[] }[] };
  const last = messages.filter((message) => message.role === 'user').at(-1)!;
  return typeof last.content === 'string' ? last.content : last.content.map((part) => part.text ?? '').join('\n');
}

/** `from` says `text` in `chatId` (a DM by default); resolves to the message Telegram delivered. */
async function say(chatId: number, text: string, from: { id: number; first_name: string }, variables = reanswer): Promise<TelegramMessage> {
  const update = await callFake<{ message: TelegramMessage }>('telegram', 'textMessage', { chatId, text, from });
  expect(await postTelegramUpdate(update, variables)).toBe(200);
  return update.message;
}

/** Telegram's update for `message` edited to `text` (same id and date, an `edit_date`). */
async function edit(message: TelegramMessage, text: string, variables = reanswer, entities: unknown[] = []): Promise<void> {
  const update = await callFake<object>('telegram', 'recorded', { edited_message: { ...message, text, entities, edit_date: Math.floor(Date.now() / 1000) } });
  expect(await postTelegramUpdate(update, variables)).toBe(200);
}

describe('edited messages on Workers', () => {
  beforeEach(async () => {
    await callFake('model', 'reset');
  });

  it('answers the new wording of a message edited while it waited behind a running turn, once', async () => {
    const ada = { id: 4242, first_name: 'Ada' };
    await callFake('model', 'enqueue', { text: 'first reply', hangMs: 1_500 }, { text: 'the reworded one, answered' });
    await say(ada.id, 'first question', ada);
    await eventually(requests, (list) => list.length === 1);
    const waiting = await say(ada.id, 'what is 2 + 2?', ada);
    await edit(waiting, 'what is 3 + 3?');
    await eventually(() => texts(ada.id), (list) => list.includes('the reworded one, answered'));
    const all = await requests();
    expect(all).toHaveLength(2);
    expect(lastUserText(all[1]!.rawBody)).toBe('what is 3 + 3?');
    expect(all[1]!.rawBody).not.toContain('2 + 2');
    expect((await texts(ada.id)).filter((text) => text === 'the reworded one, answered')).toHaveLength(1);
  });

  it('changes nothing for an edit of a message whose turn has begun, or that was answered', async () => {
    const ada = { id: 4242, first_name: 'Ada' };
    await callFake('model', 'enqueue', { text: 'a joke, being told', hangMs: 1_000 }, { text: 'after the edits' });
    const running = await say(ada.id, 'tell me a joke', ada);
    await eventually(requests, (list) => list.length === 1);
    // Its turn has begun: the edit is too late.
    await edit(running, 'tell me two jokes');
    await eventually(() => texts(ada.id), (list) => list.includes('a joke, being told'));
    // Answered: too late as well.
    await edit(running, 'tell me three jokes');
    await say(ada.id, 'still there?', ada);
    await eventually(() => texts(ada.id), (list) => list.includes('after the edits'));
    const all = await requests();
    expect(all).toHaveLength(2);
    expect(lastUserText(all[1]!.rawBody)).toBe('still there?');
    expect(JSON.stringify(all.map((request) => request.rawBody))).not.toMatch(/two jokes|three jokes/);
  });

  it('changes nothing without OPERATOR_EDITED_MESSAGES=reanswer (the default: ignore)', async () => {
    const ada = { id: 4242, first_name: 'Ada' };
    await callFake('model', 'enqueue', { text: 'busy reply', hangMs: 1_000 }, { text: 'the original answered' });
    await say(ada.id, 'first', ada, {});
    await eventually(requests, (list) => list.length === 1);
    const waiting = await say(ada.id, 'what is 5 + 5?', ada, {});
    await edit(waiting, 'what is 6 + 6?', {});
    await eventually(() => texts(ada.id), (list) => list.includes('the original answered'));
    expect(lastUserText((await requests())[1]!.rawBody)).toBe('what is 5 + 5?');
  });

  it("rewords a group message after what was overheard, under the editor's label", async () => {
    const group = -100_771;
    const bea = { id: 9_771, first_name: 'Bea' };
    const cy = { id: 9_772, first_name: 'Cy' };
    await approveGroup({ platform: 'telegram', kind: 'group', id: String(group) }, 'telegram:4242');
    const { username } = await readFake<{ username: string }>('telegram', 'bot');
    await callFake('model', 'enqueue', { text: 'Looking.', hangMs: 1_500 }, { text: 'Roll it back.' });
    await say(group, `@${username} is the deploy done?`, bea);
    await eventually(requests, (list) => list.length === 1);
    await say(group, 'the deploy is broken again', cy);
    const waiting = await say(group, `@${username} what now?`, bea);
    await edit(waiting, `@${username} what now, exactly?`, reanswer, [{ type: 'mention', offset: 0, length: username.length + 1 }]);
    await eventually(() => texts(group), (list) => list.includes('Roll it back.'));
    const text = lastUserText((await requests())[1]!.rawBody);
    expect(text).toContain(`[Cy · telegram:${cy.id}]: the deploy is broken again\n</recent_chat>`);
    expect(text.endsWith(`[Bea · telegram:${bea.id}] (speaker): what now, exactly?`)).toBe(true);
    expect(text).not.toContain('what now?');
  });

  it('takes a Slack message_changed the same way', async () => {
    const channel = 'D0WRKEDIT1';
    const from = { id: 'U0WRKTURN1', name: 'Ada' };
    await callFake('model', 'enqueue', { text: 'Slack first', hangMs: 1_500 }, { text: 'Slack second' });
    expect(await postSlackEvent(await callFake<Record<string, unknown>>('slack', 'personMessage', { channel, text: 'first in Slack', from }), reanswer)).toBe(200);
    await eventually(requests, (list) => list.length === 1);
    const waiting = await callFake<{ ts: string; user: string }>('slack', 'personMessage', { channel, text: 'deploy to staging', from });
    expect(await postSlackEvent(waiting, reanswer)).toBe(200);
    const changed = {
      type: 'message',
      subtype: 'message_changed',
      hidden: true,
      channel,
      channel_type: 'im',
      ts: `${Number(waiting.ts) + 5}.000000`,
      event_ts: `${Number(waiting.ts) + 5}.000000`,
      message: { type: 'message', user: from.id, text: 'deploy to production', ts: waiting.ts, edited: { user: from.id, ts: `${Number(waiting.ts) + 5}.000000` } },
      previous_message: { type: 'message', user: from.id, text: 'deploy to staging', ts: waiting.ts },
    };
    expect(await postSlackEvent(changed, reanswer)).toBe(200);
    await eventually(() => callFake<{ text: string }[]>('slack', 'botMessages', channel), (list) => list.some((message) => message.text === 'Slack second'));
    const all = await requests();
    expect(all).toHaveLength(2);
    expect(lastUserText(all[1]!.rawBody)).toBe('deploy to production');
  });
});

it('leaves a waiting message as it is when the running round has read it, or it is a command', async () => {
  const message = (id: string, text: string, command?: InboundMessage['command']): InboundMessage => ({
    id,
    dedupeKey: `test:${id}`,
    sessionKey: 'telegram:dm:7171',
    address: { platform: 'telegram', conversationId: '7171' },
    scope: 'dm',
    sender: { id: '7171' },
    text,
    attachments: [],
    mentioned: true,
    ...(command && { command }),
    receivedAt: Date.now(),
    raw: undefined,
  });
  const stub = env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName('edits-of-read-messages'));
  const texts = await runInDurableObject(stub, async (_instance, state) => {
    const inbox = createInbox(objectStore(state.storage));
    const log = () => undefined;
    await inbox.add(message('1', 'read by its turn'), 'read by its turn');
    await inbox.add(message('2', '/status', { name: 'status', args: '' }), '/status');
    await inbox.add(message('3', 'still waiting'), 'still waiting');
    const taking = new Set(['test:1']);
    const taken = [];
    for (const [id, text] of [['1', 'changed'], ['2', '/status now'], ['3', 'reworded']] as const) {
      taken.push(await takeWorkerEdit({ inbox, taking, log }, { ...message(id, text), edited: true, dedupeKey: `test:edit:${id}` }));
    }
    return { taken, texts: (await inbox.pending()).map((entry) => [entry.key, entry.text]) };
  });
  expect(texts.taken).toEqual([false, false, true]);
  expect(texts.texts).toEqual([['test:1', 'read by its turn'], ['test:2', '/status'], ['test:3', 'reworded']]);
});

/**
 * Where the Worker answers a Slack channel's top-level messages (`SLACK_REPLY_IN_THREAD`, the
 * Node gateway's `slack.replyInThread`), inside workerd against the fake Slack: `always` (the
 * default) in a thread under the message, whose replies go on in that thread's conversation;
 * `mentions` so only for a message that mentions the bot; `never` at the top level. A direct
 * message is answered where it was written. An invalid value is named (never quoted) and the
 * default stands.
 */
import { env, runInDurableObject } from 'cloudflare:test';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WorkerEnv } from '../../src/worker/worker-env.ts';
import { callFake, eventually, readFake } from './support/fakes.ts';
import { approveGroup } from './support/groups.ts';
import { postSlackEvent } from './support/slack.ts';

const ada = { id: 'U0WRKTURN1', name: 'Ada' };

interface SlackMessage {
  text: string;
  ts: string;
  threadTs?: string;
}

const botMessages = (channel: string, threadTs?: string | null) => callFake<SlackMessage[]>('slack', 'botMessages', channel, threadTs);
const requests = () => readFake<{ rawBody: string }[]>('model', 'requests');

/** Whether the conversation `sessionKey`'s object keeps anything (a message it took, or overheard). */
const keepsAnything = (sessionKey: string) => runInDurableObject(env.CONVERSATIONS.get(env.CONVERSATIONS.idFromName(sessionKey)), async (_object, state) => (await state.storage.list()).size > 0);

/** `text` said by Ada in `channel` (top level, or in `threadTs`), posted with `variables`; resolves to its ts. */
async function say(channel: string, text: string, variables?: Partial<WorkerEnv>, threadTs?: string): Promise<string> {
  const event = await callFake<{ ts: string }>('slack', 'personMessage', { channel, text, from: ada, ...(threadTs && { threadTs }) });
  expect(await postSlackEvent(event, variables)).toBe(200);
  return event.ts;
}

describe("a Slack channel's top-level messages on Workers", () => {
  let mention: string;
  beforeEach(async () => {
    await callFake('model', 'reset');
    mention = `<@${(await readFake<{ userId: string }>('slack', 'bot')).userId}>`;
  });
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('answers in a thread under the message by default, and a reply there goes on in that thread', async () => {
    const channel = 'C0WRKTHR1';
    await approveGroup({ platform: 'slack', kind: 'channel', id: channel }, `slack:${ada.id}`);
    await callFake('model', 'enqueue', { text: 'In the thread.' }, { text: 'Still in the thread.' });
    const ts = await say(channel, `${mention} where do you answer?`);
    const first = await eventually(() => botMessages(channel, ts), (list) => list.some((message) => message.text === 'In the thread.'));
    expect(first.map((message) => message.text)).toContain('In the thread.');
    expect(await botMessages(channel, null)).toEqual([]);
    await say(channel, `${mention} and now?`, undefined, ts);
    const second = await eventually(() => botMessages(channel, ts), (list) => list.some((message) => message.text === 'Still in the thread.'));
    expect(second.map((message) => message.text)).toContain('Still in the thread.');
    expect(await botMessages(channel, null)).toEqual([]);
    // One conversation, the thread's: the second turn has the first in its history.
    expect((await requests())[1]!.rawBody).toContain('where do you answer?');
    expect(await keepsAnything(`slack:channel:${channel}:thread:${ts}`)).toBe(true);
    expect(await keepsAnything(`slack:channel:${channel}`)).toBe(false);
  });

  it('with `mentions`, starts a thread only for a message that mentions the bot', async () => {
    const channel = 'C0WRKTHR2';
    await approveGroup({ platform: 'slack', kind: 'channel', id: channel }, `slack:${ada.id}`);
    await callFake('model', 'enqueue', { text: 'Mentioned, so threaded.' });
    const overheard = await say(channel, 'just talking here', { SLACK_REPLY_IN_THREAD: 'mentions' });
    // Not addressed to the bot: kept as context in the channel's own conversation, not a thread's.
    expect(await eventually(() => keepsAnything(`slack:channel:${channel}`), (kept) => kept)).toBe(true);
    expect(await keepsAnything(`slack:channel:${channel}:thread:${overheard}`)).toBe(false);
    const ts = await say(channel, `${mention} over to you`, { SLACK_REPLY_IN_THREAD: 'mentions' });
    const threaded = await eventually(() => botMessages(channel, ts), (list) => list.some((message) => message.text === 'Mentioned, so threaded.'));
    expect(threaded.map((message) => message.text)).toContain('Mentioned, so threaded.');
    expect(await botMessages(channel, null)).toEqual([]);
  });

  it('with `never`, answers at the top level, in the channel\'s own conversation', async () => {
    const channel = 'C0WRKTHR3';
    await approveGroup({ platform: 'slack', kind: 'channel', id: channel }, `slack:${ada.id}`);
    await callFake('model', 'enqueue', { text: 'At the top.' });
    const ts = await say(channel, `${mention} top level please`, { SLACK_REPLY_IN_THREAD: 'never' });
    const top = await eventually(() => botMessages(channel, null), (list) => list.some((message) => message.text === 'At the top.'));
    expect(top.map((message) => message.text)).toContain('At the top.');
    expect(await botMessages(channel, ts)).toEqual([]);
    expect(await keepsAnything(`slack:channel:${channel}`)).toBe(true);
  });

  it('answers a direct message where it was written', async () => {
    await callFake('model', 'enqueue', { text: 'Right here.' });
    await say('D0WRKTHR4', 'hello');
    const top = await eventually(() => botMessages('D0WRKTHR4', null), (list) => list.some((message) => message.text === 'Right here.'));
    expect(top.map((message) => message.text)).toContain('Right here.');
  });

  it('names an invalid SLACK_REPLY_IN_THREAD without its value, and answers in a thread as by default', async () => {
    const logged: string[] = [];
    vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
    const channel = 'C0WRKTHR5';
    await approveGroup({ platform: 'slack', kind: 'channel', id: channel }, `slack:${ada.id}`);
    await callFake('model', 'enqueue', { text: 'Threaded anyway.' });
    const ts = await say(channel, `${mention} hi`, { SLACK_REPLY_IN_THREAD: 'sometimes-xyzzy' });
    const threaded = await eventually(() => botMessages(channel, ts), (list) => list.some((message) => message.text === 'Threaded anyway.'));
    expect(threaded.map((message) => message.text)).toContain('Threaded anyway.');
    expect(await botMessages(channel, null)).toEqual([]);
    expect(logged).toContain('operator: SLACK_REPLY_IN_THREAD: expected one of "always", "mentions", "never" (not applied)');
    expect(logged.join('\n')).not.toContain('xyzzy');
  });
});

/**
 * The Slack adapter's AI-app side against the fake Slack: `slack.replyInThread` (a channel's
 * top-level message starts the thread it is answered in), previews in threads as native streams
 * (started, appended to, finished by the answer; stopped and edited when the text does not go on;
 * posted and edited where the workspace refuses streaming), and assistant threads (the profile's
 * prompts when one starts, its title from the first message, a status while a turn works).
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ChannelHandlers, ConversationAddress, InboundMessage } from '../../src/channels/types.ts';
import { startSlackHarness, type SlackHarness } from './slack-harness.ts';
import type { SlackChannelOptions } from '../../src/channels/slack/index.ts';

let harness: SlackHarness;
let messages: InboundMessage[];

async function start(adapter: Partial<SlackChannelOptions> = {}, more: Partial<ChannelHandlers> = {}): Promise<SlackHarness> {
  harness = await startSlackHarness({ adapter });
  messages = [];
  await harness.adapter.start({ onMessage: async (message) => void messages.push(message), onAction: async () => {}, ...more });
  return harness;
}

async function deliver(event: Record<string, unknown>): Promise<void> {
  expect((await harness.post(harness.slack.envelope(event))).status).toBe(200);
}

afterEach(async () => {
  await harness.adapter.stop();
  await harness.close();
});

const channel = { platform: 'slack', conversationId: 'C0GENERAL' };

describe('slack.replyInThread', () => {
  it('answers a channel message in a thread under it by default, the thread being the conversation; DMs where written', async () => {
    const { slack, messageEvent } = await start({ replyInThread: undefined });
    const top = messageEvent(channel, 'a question');
    await deliver(top);
    await deliver(slack.personMessage({ channel: 'D0DIRECT1', text: 'in a DM' }));
    expect(messages[0]).toMatchObject({ address: { conversationId: 'C0GENERAL', threadId: top.ts }, sessionKey: `slack:channel:C0GENERAL:thread:${String(top.ts)}` });
    expect(messages[1]!.address.threadId).toBeUndefined();
    // The person's reply in that thread is the same conversation.
    await deliver(slack.personMessage({ channel: 'C0GENERAL', text: 'more', threadTs: String(top.ts) }));
    expect(messages[2]!.sessionKey).toBe(messages[0]!.sessionKey);
  });

  it('with mentions threads only what mentions the bot; with never nothing', async () => {
    const { slack, messageEvent } = await start({ replyInThread: 'mentions' });
    await deliver(messageEvent(channel, 'overheard'));
    const asked = messageEvent(channel, `<@${slack.bot.userId}> asked`);
    await deliver(asked);
    expect(messages[0]!.address.threadId).toBeUndefined();
    expect(messages[1]!.address.threadId).toBe(asked.ts);
    await harness.adapter.stop();
    await harness.close();
    await start({ replyInThread: 'never' });
    await deliver(harness.messageEvent(channel, `<@${harness.slack.bot.userId}> asked`));
    expect(messages[0]!.address.threadId).toBeUndefined();
  });
});

describe('previews as native streams', () => {
  async function threadOf(text: string): Promise<ConversationAddress> {
    const event = harness.messageEvent(channel, text);
    await deliver(event);
    return messages.at(-1)!.address;
  }

  it('starts a stream for the person, appends what the answer grew by, and the answer finishes it', async () => {
    const { slack, adapter } = await start({ replyInThread: 'always' });
    const address = await threadOf('hello');
    const { ids } = await adapter.send(address, { text: 'The answer begins …', preview: true });
    await adapter.edit(address, ids[0]!, { text: 'The answer begins and grows …', preview: true });
    await adapter.edit(address, ids[0]!, { text: 'The answer begins and grows …', preview: true });
    const final = await adapter.send(address, { text: 'The answer begins and grows, then ends.', replace: ids[0] });
    expect(final.ids).toEqual(ids);
    expect(slack.callsOf('chat.startStream').map((call) => call.params)).toEqual([
      expect.objectContaining({ channel: 'C0GENERAL', thread_ts: address.threadId, markdown_text: 'The answer begins', recipient_user_id: 'U0PERSON1', recipient_team_id: slack.bot.teamId }),
    ]);
    // Nothing new, nothing sent: one append for one growth.
    expect(slack.callsOf('chat.appendStream').map((call) => call.params.markdown_text)).toEqual([' and grows']);
    expect(slack.callsOf('chat.stopStream').map((call) => call.params.markdown_text)).toEqual([', then ends.']);
    expect(slack.callsOf('chat.postMessage')).toEqual([]);
    expect(slack.callsOf('chat.update')).toEqual([]);
    const [message] = slack.botMessages('C0GENERAL', address.threadId);
    expect(message).toMatchObject({ text: 'The answer begins and grows, then ends.', streaming: false });
  });

  it('stops the stream and edits when the text does not go on, and when the answer has buttons', async () => {
    const { slack, adapter } = await start({ replyInThread: 'always' });
    const address = await threadOf('hello');
    const { ids } = await adapter.send(address, { text: 'Still working on it …', preview: true });
    await adapter.edit(address, ids[0]!, { text: 'Here it is **now** …', preview: true });
    expect(slack.callsOf('chat.stopStream')).toHaveLength(1);
    expect(slack.message('C0GENERAL', ids[0]!)!.text).toBe('Here it is *now* …');
    await adapter.send(address, { text: 'Here it is now.', replace: ids[0] });
    expect(slack.botMessages('C0GENERAL', address.threadId).map((message) => message.text)).toEqual(['Here it is now.']);

    const second = await adapter.send(address, { text: 'Pick one of these …', preview: true });
    await adapter.send(address, { text: 'Pick one of these:', replace: second.ids[0], buttons: [[{ label: 'A', data: 'a' }]] });
    expect(slack.callsOf('chat.stopStream')).toHaveLength(2);
    expect(slack.display(slack.message('C0GENERAL', second.ids[0]!)!).buttons?.[0]?.[0]?.value).toBe('a');
  });

  it('posts and edits previews where the workspace refuses streaming, asking once', async () => {
    const { slack, adapter, logs } = await start({ replyInThread: 'always' });
    slack.refuseStreaming();
    const address = await threadOf('hello');
    const first = await adapter.send(address, { text: 'Part one …', preview: true });
    await adapter.edit(address, first.ids[0]!, { text: 'Part one, two …', preview: true });
    await adapter.send(address, { text: 'Part one, two.', replace: first.ids[0] });
    await adapter.send(address, { text: 'Another …', preview: true });
    expect(slack.callsOf('chat.startStream').map((call) => call.error)).toEqual(['unknown_method']);
    expect(slack.callsOf('chat.postMessage')).toHaveLength(2);
    expect(slack.callsOf('chat.update')).toHaveLength(2);
    expect(slack.botMessages('C0GENERAL', address.threadId).map((message) => message.text)).toEqual(['Part one, two.', 'Another …']);
    expect(logs.some((line) => line.includes('chat.startStream refused (unknown_method)'))).toBe(true);
  });

  it('posts a top-level preview as before: Slack streams only in threads', async () => {
    const { slack, adapter } = await start({ replyInThread: 'never' });
    await adapter.send(channel, { text: 'Top level …', preview: true });
    expect(slack.callsOf('chat.startStream')).toEqual([]);
    expect(slack.botMessages('C0GENERAL', null).map((message) => message.text)).toEqual(['Top level …']);
  });
});

describe('assistant threads', () => {
  it('sets the prompts when a thread starts, titles it from the first message, and shows a status while working', async () => {
    const asked: string[] = [];
    const { slack, adapter } = await start({}, {
      suggestedPrompts: async (conversation, senderId) => {
        asked.push(`${conversation.sessionKey} ${senderId}`);
        return [1, 2, 3, 4, 5].map((n) => ({ title: `Prompt ${n}`, message: `/skill-${n}` }));
      },
    });
    const started = slack.assistantThreadStarted({ channel: 'D0DIRECT1' });
    await deliver(started);
    const threadTs = (started.assistant_thread as { thread_ts: string }).thread_ts;
    expect(asked).toEqual([`slack:dm:U0PERSON1:thread:${threadTs} U0PERSON1`]);
    expect(slack.assistant[0]).toMatchObject({ method: 'setSuggestedPrompts', channel: 'D0DIRECT1', threadTs, prompts: [1, 2, 3, 4].map((n) => ({ title: `Prompt ${n}`, message: `/skill-${n}` })) });

    await deliver(slack.personMessage({ channel: 'D0DIRECT1', text: 'Plan my week\nwith details', threadTs }));
    await deliver(slack.personMessage({ channel: 'D0DIRECT1', text: 'and another', threadTs }));
    const address = messages[0]!.address;
    await adapter.typing(address);
    await adapter.typing(address);
    const { ids } = await adapter.send(address, { text: 'Your week …', preview: true });
    await adapter.send(address, { text: 'Your week is planned.', replace: ids[0] });
    await adapter.stopTyping!(address);
    expect(slack.assistant.slice(1).map(({ method, title, status }) => ({ method, title, status }))).toEqual([
      { method: 'setTitle', title: 'Plan my week', status: undefined },
      { method: 'setStatus', title: undefined, status: 'is thinking…' },
      { method: 'setStatus', title: undefined, status: '' },
    ]);
    expect(slack.callsOf('reactions.add')).toEqual([]);
    // In a DM, the stream needs no recipient.
    expect(slack.callsOf('chat.startStream')[0]!.params.recipient_user_id).toBeUndefined();
  });

  it('falls back to the reaction where a thread takes no status', async () => {
    const { slack, adapter } = await start();
    const parent = slack.personMessage({ channel: 'D0DIRECT1', text: 'parent' });
    await deliver(slack.personMessage({ channel: 'D0DIRECT1', text: 'in a thread', threadTs: String(parent.ts) }));
    slack.failNext('assistant.threads.setStatus', { error: 'missing_scope' });
    const address = messages[0]!.address;
    await adapter.typing(address);
    await adapter.typing(address);
    await adapter.stopTyping!(address);
    expect(slack.callsOf('assistant.threads.setStatus')).toHaveLength(1);
    expect(slack.callsOf('reactions.add')).toHaveLength(1);
    expect(slack.callsOf('reactions.remove')).toHaveLength(1);
  });
});

/**
 * Slack events as neutral messages and actions: the bot's own messages ignored, other bots
 * marked, edits and deletions ignored, files as attachments downloaded with the bot token,
 * threads as their own conversations (and replies going into them), DMs, mention gating and
 * commands.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChannelAction, InboundMessage } from '../../src/channels/types.ts';
import { startSlackHarness, type SlackHarness } from './slack-harness.ts';

const channel = { platform: 'slack', conversationId: 'C0GENERAL' };
/** The adapter's clock in these tests: now, to the second, fixed for the whole file. */
const fixedNow = Math.floor(Date.now() / 1000) * 1000;
let harness: SlackHarness;
let messages: InboundMessage[];
let actions: ChannelAction[];

async function start(options: { allowBots?: boolean } = {}): Promise<SlackHarness> {
  // A fixed clock for `receivedAt`, at the time requests are signed (Slack refuses timestamps
  // more than five minutes away from it, either way).
  harness = await startSlackHarness({ adapter: { now: () => fixedNow, ...options } });
  messages = [];
  actions = [];
  await harness.adapter.start({ onMessage: async (message) => void messages.push(message), onAction: async (action) => void actions.push(action) });
  return harness;
}

/** Sends an event and waits for its answer (the route answers once the event is handled). */
async function deliver(event: Record<string, unknown>): Promise<void> {
  const result = await harness.post(harness.slack.envelope(event));
  expect(result.status).toBe(200);
}

afterEach(async () => {
  await harness.adapter.stop();
  await harness.close();
});

describe('slack inbound', () => {
  it('maps a channel message with the neutral fields and mention gating', async () => {
    const { slack, messageEvent } = await start();
    const plain = messageEvent(channel, 'just chatting &amp; &lt;stuff&gt; with <@U0OTHER01|bob> in <#C0RANDOM1|random>, see <https://example.com|the docs>');
    await deliver(plain);
    await deliver(messageEvent(channel, `<@${slack.bot.userId}>: /Status   now please`));
    await deliver(messageEvent(channel, `thanks <@${slack.bot.userId}> for that`));
    expect(messages[0]).toMatchObject({
      id: plain.ts,
      dedupeKey: `slack:C0GENERAL:${plain.ts}`,
      sessionKey: 'slack:channel:C0GENERAL',
      address: { platform: 'slack', conversationId: 'C0GENERAL' },
      scope: 'group',
      sender: { id: 'U0PERSON1', isBot: false },
      text: 'just chatting & <stuff> with @bob in #random, see the docs (https://example.com)',
      mentioned: false,
      attachments: [],
      receivedAt: fixedNow,
    });
    expect(messages[0]!.address.threadId).toBeUndefined();
    expect(messages[0]!.command).toBeUndefined();
    // Slack's ts is the send time in seconds with microseconds.
    expect(messages[0]!.sentAt).toBe(Math.floor(Number(plain.ts) * 1000));
    expect(messages[1]).toMatchObject({ mentioned: true, text: '/Status   now please', command: { name: 'status', args: 'now please' } });
    expect(messages[2]).toMatchObject({ mentioned: true, text: 'thanks for that' });
  });

  it('ignores its own messages, edits and deletions, and (other apps allowed) marks other bots', async () => {
    const { slack, messageEvent } = await start({ allowBots: true });
    await deliver({ ...messageEvent(channel, 'my own words'), user: slack.bot.userId, bot_id: slack.bot.botId });
    await deliver({ ...messageEvent(channel, 'legacy own post'), subtype: 'bot_message', user: undefined, bot_id: slack.bot.botId });
    await deliver({ ...messageEvent(channel, 'edited'), subtype: 'message_changed' });
    await deliver({ ...messageEvent(channel, ''), subtype: 'message_deleted' });
    await deliver({ ...messageEvent(channel, 'joined'), subtype: 'channel_join' });
    await deliver({ ...messageEvent(channel, 'beep from another app'), subtype: 'bot_message', user: undefined, bot_id: 'B0OTHER01', username: 'deploybot' });
    await deliver({ ...messageEvent(channel, 'an app posting as a user'), bot_id: 'B0OTHER02', user: 'U0APPUSER' });
    expect(messages.map((message) => [message.text, message.sender])).toEqual([
      ['beep from another app', { id: 'B0OTHER01', name: 'deploybot', isBot: true }],
      ['an app posting as a user', { id: 'U0APPUSER', isBot: true }],
    ]);
  });

  it('makes a thread its own conversation, and a reply to it goes into the thread', async () => {
    const { slack, messageEvent, adapter } = await start();
    const parent = messageEvent(channel, 'top level');
    const thread = { ...channel, threadId: String(parent.ts) };
    const reply = messageEvent(thread, 'in the thread');
    await deliver(reply);
    await deliver({ ...messageEvent(thread, 'also sent to the channel'), subtype: 'thread_broadcast' });
    expect(messages.map((message) => [message.sessionKey, message.address.threadId])).toEqual([
      [`slack:channel:C0GENERAL:thread:${parent.ts}`, parent.ts],
      [`slack:channel:C0GENERAL:thread:${parent.ts}`, parent.ts],
    ]);
    const { ids } = await adapter.send(messages[0]!.address, { text: 'answering in the thread' });
    expect(slack.message('C0GENERAL', ids[0]!)).toMatchObject({ threadTs: parent.ts, text: 'answering in the thread' });
    expect(slack.callsOf('chat.postMessage')[0]!.params).toMatchObject({ channel: 'C0GENERAL', thread_ts: parent.ts, mrkdwn: 'true' });
  });

  it('maps a direct message and a thread in it', async () => {
    const { messageEvent } = await start();
    const dm = { platform: 'slack', conversationId: 'D0DIRECT1' };
    const first = messageEvent(dm, 'hi bot', { from: { id: 'U0CAROL01' } });
    await deliver(first);
    await deliver(messageEvent({ ...dm, threadId: String(first.ts) }, 'more', { from: { id: 'U0CAROL01' } }));
    expect(messages[0]).toMatchObject({ sessionKey: 'slack:dm:U0CAROL01', scope: 'dm', mentioned: true, address: { conversationId: 'D0DIRECT1' } });
    expect(messages[1]).toMatchObject({ sessionKey: `slack:dm:U0CAROL01:thread:${first.ts}`, scope: 'dm', address: { threadId: first.ts } });
  });

  it('turns shared files into attachments downloaded with the bot token', async () => {
    const { slack, messageEvent } = await start();
    const photo = slack.hostFile({ name: 'cat.png', mimetype: 'image/png', bytes: new Uint8Array([137, 80, 78, 71]) });
    const report = slack.hostFile({ name: 'report.pdf', mimetype: 'application/pdf', bytes: new TextEncoder().encode('%PDF-1.7') });
    await deliver({ ...messageEvent(channel, ''), subtype: 'file_share', files: [photo, report] });
    const [message] = messages;
    expect(message!.text).toBe('');
    expect(message!.attachments.map(({ kind, mediaType, name, size }) => ({ kind, mediaType, name, size }))).toEqual([
      { kind: 'image', mediaType: 'image/png', name: 'cat.png', size: 4 },
      { kind: 'file', mediaType: 'application/pdf', name: 'report.pdf', size: 8 },
    ]);
    expect(await message!.attachments[0]!.download()).toEqual(new Uint8Array([137, 80, 78, 71]));
    expect(new TextDecoder().decode(await message!.attachments[1]!.download())).toBe('%PDF-1.7');
  });

  it('refuses to send the token to a host that is not Slack, and reports a refused download', async () => {
    const { slack, messageEvent } = await start();
    const elsewhere = { ...slack.hostFile({ name: 'a.txt', mimetype: 'text/plain', bytes: new Uint8Array([1]) }), url_private_download: 'https://evil.example/steal' };
    const missing = { ...slack.hostFile({ name: 'b.txt', mimetype: 'text/plain', bytes: new Uint8Array([2]) }), url_private_download: `${slack.origin}/files-pri/T0FAKE001-F0NONE/download/b.txt` };
    await deliver({ ...messageEvent(channel, 'files'), subtype: 'file_share', files: [elsewhere, missing] });
    await expect(messages[0]!.attachments[0]!.download()).rejects.toMatchObject({ name: 'DeliveryError', retryable: false, message: expect.stringContaining('not a Slack file host') });
    await expect(messages[0]!.attachments[1]!.download()).rejects.toMatchObject({ name: 'DeliveryError', message: expect.stringContaining('HTTP 404') });
  });

  it('maps a button press in a thread to the thread conversation of the message', async () => {
    const { slack, messageEvent, adapter, post } = await start();
    const parent = messageEvent(channel, 'top');
    const thread = { ...channel, threadId: String(parent.ts) };
    const { ids } = await adapter.send(thread, { text: 'Approve?', buttons: [[{ label: 'Approve', data: 'approve' }, { label: 'Deny', data: 'deny' }]] });
    await post(slack.blockAction({ channel: 'C0GENERAL', messageTs: ids[0]!, value: 'approve', from: { id: 'U0DAVE001', name: 'Dave' } }));
    await vi.waitFor(() => expect(actions).toHaveLength(1));
    expect(actions[0]).toMatchObject({
      data: 'approve',
      messageId: ids[0],
      sessionKey: `slack:channel:C0GENERAL:thread:${parent.ts}`,
      address: { conversationId: 'C0GENERAL', threadId: parent.ts },
      sender: { id: 'U0DAVE001', name: 'dave' },
    });
    expect(actions[0]!.dedupeKey).toBe(`slack:action:${actions[0]!.id}`);
  });
});

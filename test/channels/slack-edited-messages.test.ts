/**
 * Slack's `message_changed` as the adapter's reading gives it, from the corpus's captured event (a
 * link unfurled: no edit) and that event as a person's edit (the `edited` mark, new words): a
 * message marked `edited`, in the original's conversation, with the original's id, never a command.
 * Through the real adapter on the fake Slack, edits are handed over only with `editedMessages`.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { InboundMessage } from '../../src/channels/types.ts';
import { toEditedMessage, type SlackChangedEvent } from '../../src/channels/slack/edited-message.ts';
import { fill, samplesOf } from '../corpus/real-payloads.ts';
import { startSlackHarness, type SlackHarness } from './slack-harness.ts';

const values = { TEAM: 'T0TEAM', S_USER: 'U0ADA', C_MAIN: 'C0MAIN', SLACK_BOT: 'U0BOT', EVID: 'Ev1', NOW: 1_800_000_000, '*': (name: string) => (name.startsWith('TS:') ? (name === 'TS:old' ? '1800000000.000100' : '1800000001.000200') : undefined) };
const [envelope] = fill(samplesOf('slack').find((sample) => sample.name === 'channel-message-changed')!.deliver, values) as { event: SlackChangedEvent }[];
const unfurl = envelope!.event;
const context = { bot: { userId: 'U0BOT', botId: 'B0BOT', teamId: 'T0TEAM' }, download: async () => new Uint8Array(), now: () => 1_800_000_002_000 };
const edit = (text: string): SlackChangedEvent => ({ ...unfurl, message: { ...unfurl.message!, text, attachments: [], edited: { user: 'U0ADA', ts: '1800000001.000000' } } });

describe('Slack edits', () => {
  it('are not a link unfurled', () => {
    expect(toEditedMessage(unfurl, context)).toBeUndefined();
  });

  it('come as the edited message, marked, with its new words and its own id', () => {
    expect(toEditedMessage(edit(`<@U0BOT> what about Friday?`), context)).toMatchObject({ id: '1800000000.000100', edited: true, text: 'what about Friday?', mentioned: true, sessionKey: expect.stringContaining('C0MAIN') });
  });

  it('never run a command, and ignore an edit that changed no words', () => {
    expect(toEditedMessage(edit('/new'), context)?.command).toBeUndefined();
    const same = edit(unfurl.previous_message!.text!);
    expect(toEditedMessage(same, context)).toBeUndefined();
  });
});

describe('Slack edits through the adapter', () => {
  let harness: SlackHarness | undefined;
  afterEach(async () => {
    await harness?.adapter.stop();
    await harness?.close();
    harness = undefined;
  });

  /** Posts a DM, its edit and a last DM; resolves to what was handed over once the last is. */
  async function sendAndEdit(editedMessages: boolean): Promise<InboundMessage[]> {
    harness = await startSlackHarness({ adapter: { editedMessages } });
    const messages: InboundMessage[] = [];
    await harness.adapter.start({ onMessage: async (message) => void messages.push(message), onAction: async () => {} });
    const { slack } = harness;
    const dm = { platform: 'slack', conversationId: 'D0PERSON1' };
    const first = harness.messageEvent(dm, 'what is 2 + 2?', { from: { id: 'U0PERSON1' } });
    expect((await harness.post(slack.envelope(first))).status).toBe(200);
    const changed = { type: 'message', subtype: 'message_changed', channel: first.channel, channel_type: first.channel_type, ts: '1800000009.000900', hidden: true, message: { ...first, text: 'what is 3 + 3?', edited: { user: 'U0PERSON1', ts: '1800000009.000000' } }, previous_message: first };
    expect((await harness.post(slack.envelope(changed))).status).toBe(200);
    expect((await harness.post(slack.envelope(harness.messageEvent(dm, 'last', { from: { id: 'U0PERSON1' } })))).status).toBe(200);
    await vi.waitFor(() => expect(messages.at(-1)?.text).toBe('last'));
    return messages;
  }

  it('hands over the edit, marked, with editedMessages', async () => {
    const messages = await sendAndEdit(true);
    expect(messages.map((message) => [message.text, message.edited ?? false])).toEqual([['what is 2 + 2?', false], ['what is 3 + 3?', true], ['last', false]]);
    expect(messages[1]!.id).toBe(messages[0]!.id);
  });

  it('hands over no edit without it', async () => {
    expect((await sendAndEdit(false)).map((message) => message.text)).toEqual(['what is 2 + 2?', 'last']);
  });
});

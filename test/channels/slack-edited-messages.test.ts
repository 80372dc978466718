/**
 * Slack's `message_changed` as the adapter's reading gives it, from the corpus's captured event (a
 * link unfurled: no edit) and that event as a person's edit (the `edited` mark, new words): a
 * message marked `edited`, in the original's conversation, with the original's id, never a command.
 */
import { describe, expect, it } from 'vitest';
import { toEditedMessage, type SlackChangedEvent } from '../../src/channels/slack/edited-message.ts';
import { fill, samplesOf } from '../corpus/real-payloads.ts';

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

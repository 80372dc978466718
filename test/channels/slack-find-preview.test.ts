/**
 * Finding the bot's own unfinished preview in a Slack conversation (the adapter's `findPreview`,
 * through the real WebClient against the fake Slack's `conversations.history` and
 * `conversations.replies`): only the bot's messages, only unfinished ones, only since the given
 * moment, the newest first, in a thread its replies.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { ConversationAddress } from '../../src/channels/types.ts';
import { startSlackHarness, type SlackHarness } from './slack-harness.ts';

let harness: SlackHarness;

afterEach(async () => {
  await harness.adapter.stop();
  await harness.close();
});

describe('Slack findPreview', () => {
  it("finds the newest of the bot's unfinished messages since a moment, and nothing else", async () => {
    harness = await startSlackHarness();
    const { adapter } = harness;
    await adapter.start({ onMessage: async () => {}, onAction: async () => {} });
    const dm: ConversationAddress = harness.address;
    await adapter.send(dm, { text: 'an old unfinished one …' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    const since = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(await adapter.findPreview!(dm, { since, marker: '…' })).toBeUndefined();
    await adapter.send(dm, { text: 'a finished answer' });
    const first = await adapter.send(dm, { text: 'a preview …' });
    harness.messageEvent(dm, 'a person ending with …');
    expect(await adapter.findPreview!(dm, { since, marker: '…' })).toBe(first.ids[0]);
    const second = await adapter.send(dm, { text: 'a later preview …' });
    expect(await adapter.findPreview!(dm, { since, marker: '…' })).toBe(second.ids[0]);
    // Once finished, it is not unfinished any more.
    await adapter.edit(dm, second.ids[0]!, { text: 'the later answer' });
    expect(await adapter.findPreview!(dm, { since, marker: '…' })).toBe(first.ids[0]);
  });

  it("looks in a thread's replies", async () => {
    harness = await startSlackHarness({ address: { platform: 'slack', conversationId: 'C0GENERAL', threadId: 'new' } });
    const { adapter } = harness;
    await adapter.start({ onMessage: async () => {}, onAction: async () => {} });
    const since = Date.now();
    const preview = await adapter.send(harness.address, { text: 'in the thread …' });
    await adapter.send({ platform: 'slack', conversationId: harness.address.conversationId }, { text: 'top level …' });
    expect(await adapter.findPreview!(harness.address, { since, marker: '…' })).toBe(preview.ids[0]);
  });
});

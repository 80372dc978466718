/**
 * Finding the bot's own unfinished preview in a Slack conversation (the adapter's `findPreview`,
 * through the real WebClient against the fake Slack's `conversations.history` and
 * `conversations.replies`): only the bot's messages, only unfinished ones, only since the given
 * moment, the newest first, in a thread its replies. A native stream carries no marker: one an
 * earlier adapter (an earlier process) began is found by its note in the adapter's memory (the
 * gateway's store, through `channelMemory`), stopped, and finished by edits; one whose ts the
 * gateway noted is stopped at its first edit.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createSlackChannel } from '../../src/channels/slack/index.ts';
import type { ConversationAddress } from '../../src/channels/types.ts';
import { channelMemory } from '../../src/gateway/channel-memory.ts';
import { createStore } from '../../src/store/index.ts';
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

  it('finds a stream an earlier process began by its note, stops it, and stops a noted one at its first edit', async () => {
    const store = createStore({ driver: 'memory' });
    const memory = channelMemory(() => store, 'slack');
    harness = await startSlackHarness({ address: { platform: 'slack', conversationId: 'D0DIRECT1', threadId: 'new' }, adapter: { memory } });
    const { adapter, slack, address } = harness;
    const handlers = { onMessage: async () => {}, onAction: async () => {} };
    await adapter.start(handlers);
    const since = Date.now();
    const first = await adapter.send(address, { text: 'The answer so far …', preview: true });
    const stream = () => slack.botMessages(address.conversationId, address.threadId!).find((message) => message.ts === first.ids[0])!;
    expect(stream()).toMatchObject({ streaming: true, text: 'The answer so far' });

    // The next process's adapter, over the same memory: the gateway never heard the ts.
    const next = createSlackChannel({ botToken: slack.bot.token, signingSecret: slack.signingSecret, apiUrl: slack.apiUrl, log: () => {}, memory });
    await next.start(handlers);
    try {
      // A turn that began after the stream did not leave it.
      expect(await next.findPreview!(address, { since: Date.now() + 60_000, marker: '…' })).toBeUndefined();
      expect(stream().streaming).toBe(true);
      expect(await next.findPreview!(address, { since, marker: '…' })).toBe(first.ids[0]);
      expect(stream()).toMatchObject({ streaming: false, text: 'The answer so far' });
      await next.edit(address, first.ids[0]!, { text: 'The whole answer.' });
      expect(stream().text).toBe('The whole answer.');

      // A stream whose ts the gateway noted: stopped before the first edit, then edited.
      const second = await adapter.send(address, { text: 'Another answer so far …', preview: true });
      const noted = () => slack.botMessages(address.conversationId, address.threadId!).find((message) => message.ts === second.ids[0])!;
      expect(noted().streaming).toBe(true);
      await next.edit(address, second.ids[0]!, { text: 'Another whole answer.' });
      expect(noted()).toMatchObject({ streaming: false, text: 'Another whole answer.' });
      expect(slack.callsOf('chat.stopStream').map((call) => call.params.ts)).toEqual([first.ids[0], second.ids[0]]);
      // Looked at once per message: the next edit asks Slack nothing more.
      await next.edit(address, second.ids[0]!, { text: 'Edited once more.' });
      expect(slack.callsOf('chat.stopStream')).toHaveLength(2);
    } finally {
      await next.stop();
      await store.close();
    }
  });
});

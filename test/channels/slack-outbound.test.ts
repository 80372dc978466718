/**
 * Slack outbound: mrkdwn and Block Kit buttons on the wire, edits that say which blocks remain,
 * replace falling back to a new message, rate limits (Retry-After waited out, then given up with
 * retryAfterMs), error classification, partial deliveries, the reaction indicator, ephemeral
 * answers to presses, and no token in any error or log line.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { DeliveryError, type ChannelAction } from '../../src/channels/types.ts';
import type { SlackChannelOptions } from '../../src/channels/slack/index.ts';
import { startSlackHarness, type SlackHarness } from './slack-harness.ts';

const channel = { platform: 'slack', conversationId: 'C0GENERAL' };
let harness: SlackHarness;

async function start(adapter: Partial<SlackChannelOptions> = {}): Promise<SlackHarness> {
  harness = await startSlackHarness({ adapter });
  await harness.adapter.start({ onMessage: async () => {}, onAction: async () => {} });
  return harness;
}

async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

function longText(): string {
  return Array.from({ length: 3 }, (_, index) => `**Part ${index}** ${'word '.repeat(500)}`).join('\n\n');
}

afterEach(async () => {
  await harness.adapter.stop();
  await harness.close();
});

describe('slack outbound', () => {
  it('sends Markdown as mrkdwn with chat.postMessage', async () => {
    const { slack, adapter } = await start();
    const { ids } = await adapter.send(channel, { text: '## Result\n\n**Done** in `main.ts`, see [docs](https://example.com/a?b=1&c=2) & <more>', replyTo: '123.456' });
    const [call] = slack.callsOf('chat.postMessage');
    expect(call!.params).toMatchObject({ channel: 'C0GENERAL', mrkdwn: 'true', text: '*Result*\n\n*Done* in `main.ts`, see <https://example.com/a?b=1&amp;c=2|docs> &amp; &lt;more&gt;' });
    expect(call!.params.thread_ts).toBeUndefined();
    expect(call!.params.blocks).toBeUndefined();
    expect(slack.display(slack.message('C0GENERAL', ids[0]!)!).text).toBe('Result\n\nDone in main.ts, see docs & <more>');
  });

  it('puts buttons in Block Kit on the last chunk only, and an edit says which blocks remain', async () => {
    const { slack, adapter } = await start();
    const buttons = [[{ label: 'Approve', data: 'approve' }, { label: 'Deny', data: 'deny' }], [{ label: 'Details', data: 'details:42' }]];
    const { ids } = await adapter.send(channel, { text: longText(), buttons });
    expect(ids.length).toBeGreaterThan(1);
    const calls = slack.callsOf('chat.postMessage');
    expect(calls.slice(0, -1).every((call) => call.params.blocks === undefined)).toBe(true);
    const blocks = calls.at(-1)!.params.blocks as Record<string, unknown>[];
    expect(blocks.map((block) => block.type)).toEqual(['section', 'actions', 'actions']);
    expect(blocks[0]).toEqual({ type: 'section', text: { type: 'mrkdwn', text: calls.at(-1)!.params.text } });
    const elements = blocks.slice(1).flatMap((block) => block.elements as { action_id: string; value: string }[]);
    expect(elements.map((element) => element.value)).toEqual(['approve', 'deny', 'details:42']);
    expect(new Set(elements.map((element) => element.action_id)).size).toBe(3);

    const last = ids.at(-1)!;
    await adapter.edit(channel, last, { text: 'Approved.' });
    expect(slack.callsOf('chat.update')[0]!.params).toMatchObject({ channel: 'C0GENERAL', ts: last, text: 'Approved.', blocks: [] });
    expect(slack.display(slack.message('C0GENERAL', last)!)).toMatchObject({ text: 'Approved.' });
    expect(slack.display(slack.message('C0GENERAL', last)!).buttons).toBeUndefined();
    await adapter.edit(channel, last, { text: 'Pick again', buttons: [[{ label: 'Yes', data: 'yes' }]] });
    expect(slack.display(slack.message('C0GENERAL', last)!).buttons).toEqual([[{ label: 'Yes', value: 'yes', actionId: expect.any(String) }]]);
  });

  it('sends the first part anew when the message to replace cannot be edited', async () => {
    const { slack, adapter, logs } = await start();
    const { ids } = await adapter.send(channel, { text: 'preview …' });
    slack.failNext('chat.update', { error: 'message_not_found' });
    const result = await adapter.send(channel, { text: 'The final answer.', replace: ids[0] });
    expect(result.ids).toHaveLength(1);
    expect(result.ids[0]).not.toBe(ids[0]);
    expect(slack.botMessages('C0GENERAL').map((message) => message.text)).toEqual(['preview …', 'The final answer.']);
    expect(logs.some((line) => line.includes('could not be edited (message_not_found)'))).toBe(true);
    slack.failNext('chat.update', { status: 503 });
    expect(await failure(adapter.send(channel, { text: 'Another answer.', replace: result.ids[0] }))).toMatchObject({ retryable: true });
  });

  it('waits out a 429 for its Retry-After, a bounded number of times, then gives up with retryAfterMs', async () => {
    const waits: number[] = [];
    const { slack, adapter } = await start({ retry: { attempts: 3, sleep: async (ms) => void waits.push(ms) } });
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 2 });
    const { ids } = await adapter.send(channel, { text: 'after the wait' });
    expect(waits).toEqual([2000]);
    expect(slack.callsOf('chat.postMessage').map((call) => call.status)).toEqual([429, 200]);
    expect(slack.botMessages('C0GENERAL').map((message) => message.ts)).toEqual(ids);

    slack.failNext('chat.postMessage', { status: 429, retryAfter: 3, times: 5 });
    const error = await failure(adapter.send(channel, { text: 'flooded' }));
    expect(waits).toEqual([2000, 3000, 3000]);
    expect(error).toMatchObject({ retryable: true, retryAfterMs: 3000 });
    expect(error.message).toContain('rate limited');
  });

  it('does not wait in place for a Retry-After beyond the longest allowed wait', async () => {
    const waits: number[] = [];
    const { slack, adapter } = await start({ retry: { maxWaitMs: 10_000, sleep: async (ms) => void waits.push(ms) } });
    slack.failNext('chat.update', { status: 429, retryAfter: 120 });
    const error = await failure(adapter.edit(channel, '1.2', { text: 'x' }));
    expect(waits).toEqual([]);
    expect(error.retryAfterMs).toBe(120_000);
  });

  it('classifies failures: Slack errors final, 5xx and network retryable', async () => {
    const { slack, adapter } = await start();
    slack.failNext('chat.postMessage', { error: 'channel_not_found' });
    const missing = await failure(adapter.send(channel, { text: 'hello' }));
    expect(missing).toMatchObject({ retryable: false, retryAfterMs: undefined, message: 'Slack chat.postMessage failed: channel_not_found' });
    slack.failNext('chat.postMessage', { error: 'internal_error' });
    expect(await failure(adapter.send(channel, { text: 'hello' }))).toMatchObject({ retryable: true });
    slack.failNext('chat.postMessage', { status: 500 });
    expect(await failure(adapter.send(channel, { text: 'hello' }))).toMatchObject({ retryable: true, message: 'Slack chat.postMessage failed: HTTP 500' });
    slack.failNext('chat.postMessage', { dropConnection: true });
    expect(await failure(adapter.send(channel, { text: 'hello' }))).toMatchObject({ retryable: true, message: expect.stringContaining('network error') });
    expect(slack.callsOf('chat.postMessage')).toHaveLength(4);
  });

  it('reports the parts a long message delivered before failing, and a retry sends only the rest', async () => {
    const { slack, adapter } = await start();
    const whole = await adapter.send(channel, { text: longText() });
    const parts = slack.botMessages('C0GENERAL').map((message) => message.text);
    expect(parts.length).toBeGreaterThan(1);
    let calls = 0;
    slack.failNext('chat.postMessage', { status: 502, when: () => ++calls === 2 });
    const error = await failure(adapter.send(channel, { text: longText() }));
    expect(error.delivered).toHaveLength(1);
    const { ids } = await adapter.send(channel, { text: longText(), skipParts: error.delivered.length });
    const again = slack.botMessages('C0GENERAL').slice(whole.ids.length);
    expect(again.map((message) => message.text)).toEqual(parts);
    expect([...error.delivered, ...ids]).toEqual(again.map((message) => message.ts));
  });

  it('shows a reaction on the latest message while a turn works, once, and takes it down', async () => {
    const { slack, adapter, post, messageEvent } = await start();
    await adapter.typing(channel);
    expect(slack.callsOf('reactions.add')).toEqual([]);
    const first = messageEvent(channel, 'first');
    const latest = messageEvent(channel, 'latest');
    await post(slack.envelope(first));
    await post(slack.envelope(latest));
    await adapter.typing(channel);
    await adapter.typing(channel);
    expect(slack.callsOf('reactions.add').map((call) => call.params)).toEqual([{ channel: 'C0GENERAL', timestamp: latest.ts, name: 'hourglass_flowing_sand' }]);
    expect([...slack.message('C0GENERAL', String(latest.ts))!.reactions.keys()]).toEqual(['hourglass_flowing_sand']);
    await adapter.stopTyping!(channel);
    await adapter.stopTyping!(channel);
    expect(slack.callsOf('reactions.remove')).toHaveLength(1);
    expect(slack.message('C0GENERAL', String(latest.ts))!.reactions.size).toBe(0);

    slack.failNext('reactions.add', { error: 'already_reacted' });
    await adapter.typing(channel);
    slack.failNext('reactions.remove', { error: 'no_reaction' });
    await adapter.stopTyping!(channel);
    slack.failNext('reactions.add', { error: 'missing_scope' });
    expect(await failure(adapter.typing(channel))).toMatchObject({ retryable: false, message: 'Slack reactions.add failed: missing_scope' });
  });

  it('answers a button press with an ephemeral notice to the presser, in the thread', async () => {
    const { slack, adapter } = await start();
    const action: ChannelAction = {
      id: '123.456.abc',
      dedupeKey: 'slack:action:123.456.abc',
      sessionKey: 'slack:channel:C0GENERAL:thread:1.000001',
      address: { platform: 'slack', conversationId: 'C0GENERAL', threadId: '1.000001' },
      sender: { id: 'U0PERSON1' },
      data: 'deny',
      messageId: '1.000002',
      raw: {},
    };
    await adapter.answerAction!(action);
    expect(slack.ephemerals).toEqual([]);
    await adapter.answerAction!(action, 'Denied **for now**.');
    expect(slack.ephemerals).toEqual([{ channel: 'C0GENERAL', user: 'U0PERSON1', text: 'Denied *for now*.', threadTs: '1.000001' }]);
  });

  it('never lets the token into an error, its causes, or a log line', async () => {
    const { slack, adapter, logs, post, messageEvent } = await start();
    const token = slack.bot.token;
    slack.failNext('chat.postMessage', { status: 500, body: `upstream failed for Bearer ${token}` });
    const httpError = await failure(adapter.send(channel, { text: 'a' }));
    slack.failNext('chat.postMessage', { dropConnection: true });
    const networkError = await failure(adapter.send(channel, { text: 'b' }));
    const texts = [httpError, networkError].flatMap((error) => {
      const chain: string[] = [];
      for (let cause: unknown = error; cause instanceof Error; cause = cause.cause) chain.push(cause.message, cause.stack ?? '', JSON.stringify(cause));
      return chain;
    });
    await adapter.stop();
    await adapter.start({ onMessage: async () => Promise.reject(new Error(`store refused token ${token} and xoxb-9999-other-token`)), onAction: async () => {} });
    await post(slack.envelope(messageEvent(channel, 'trigger a logged failure')));
    expect(logs.some((line) => line.includes('store refused token <secret>'))).toBe(true);
    for (const text of [...texts, ...logs]) {
      expect(text).not.toContain(token);
      expect(text).not.toMatch(/xoxb-\d/);
      expect(text).not.toContain(slack.signingSecret);
    }
  });
});

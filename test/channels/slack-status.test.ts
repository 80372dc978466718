/**
 * What the Slack adapter reports through `handlers.status`, against the fake Slack: every 429 of
 * the Web API is a `rate_limited` with its `Retry-After` (the adapter's calls, and the Socket Mode
 * client's own `apps.connections.open`); in Socket Mode a socket that drops, or that Slack asks to
 * replace, is one `disconnected` and the next `hello` one `reconnected`, however many attempts
 * lie between; over HTTP events there is no connection to report. No reason carries a token.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ChannelStatus, InboundMessage } from '../../src/channels/types.ts';
import { startSlackHarness, type SlackHarness } from './slack-harness.ts';
import { startSlackSocketHarness, type SlackSocketHarness, type SlackSocketHarnessOptions } from './slack-socket-harness.ts';

const dm = { platform: 'slack', conversationId: 'D0DIRECT1' };
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function startedSocket(options: SlackSocketHarnessOptions, before: (harness: SlackSocketHarness) => void = () => {}) {
  const harness = await startSlackSocketHarness(options);
  cleanups.push(() => harness.close(), () => harness.adapter.stop());
  const statuses: ChannelStatus[] = [];
  const messages: InboundMessage[] = [];
  before(harness);
  await harness.adapter.start({ onMessage: async (message) => void messages.push(message), onAction: async () => {}, status: (status) => statuses.push(status) });
  return { harness, statuses, messages };
}

function expectNoSecret(statuses: ChannelStatus[], harness: SlackHarness | SlackSocketHarness): void {
  const shown = JSON.stringify(statuses);
  expect(shown).not.toContain(harness.slack.bot.token);
  expect(shown).not.toContain(harness.slack.socket.appToken);
  expect(shown).not.toContain(harness.slack.signingSecret);
}

describe('slack link status', () => {
  it('reports every 429 of a Web API call with its Retry-After, the one given up on included (HTTP events)', async () => {
    const waits: number[] = [];
    const harness = await startSlackHarness({ adapter: { retry: { attempts: 2, sleep: async (ms) => void waits.push(ms) } } });
    cleanups.push(() => harness.close(), () => harness.adapter.stop());
    const statuses: ChannelStatus[] = [];
    await harness.adapter.start({ onMessage: async () => {}, onAction: async () => {}, status: (status) => statuses.push(status) });
    const { slack, adapter } = harness;
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 2 });
    await adapter.send(dm, { text: 'after one wait' });
    slack.failNext('chat.update', { status: 429, retryAfter: 5, times: 2 });
    const { ids } = await adapter.send(dm, { text: 'to edit' });
    await expect(adapter.edit(dm, ids[0]!, { text: 'edited' })).rejects.toMatchObject({ retryAfterMs: 5_000 });
    expect(waits).toEqual([2_000, 5_000]);
    expect(statuses).toEqual([
      { kind: 'rate_limited', retryAfterMs: 2_000 },
      { kind: 'rate_limited', retryAfterMs: 5_000 },
      { kind: 'rate_limited', retryAfterMs: 5_000 },
    ]);
  });

  it('reports a 429 the Socket Mode client waits out itself on apps.connections.open', async () => {
    const { statuses, harness } = await startedSocket({}, ({ slack }) => slack.failNext('apps.connections.open', { status: 429, retryAfter: 1 }));
    expect(harness.slack.callsOf('apps.connections.open').map((call) => call.status)).toEqual([429, 200]);
    expect(statuses).toEqual([{ kind: 'rate_limited', retryAfterMs: 1_000 }]);
  });

  it('reports a dropped socket once, through a failed reconnect, and reconnected once Slack says hello again', async () => {
    const { harness, statuses, messages } = await startedSocket({ adapter: { socketPingTimeoutMs: 500 } });
    const { slack, deliverAcked, messageEvent } = harness;
    slack.failNext('apps.connections.open', { error: 'internal_error' });
    slack.socket.drop();
    await slack.waitFor((current) => current.socket.connections.length === 2 && current.socket.connections[1]!.open);
    await deliverAcked(slack.envelope(messageEvent(dm, 'after the drop')));
    expect(messages.map((message) => message.text)).toEqual(['after the drop']);
    expect(slack.callsOf('apps.connections.open').map((call) => call.error)).toEqual([undefined, 'internal_error', undefined]);
    expect(statuses).toEqual([{ kind: 'disconnected', reason: expect.stringContaining('Socket Mode') }, { kind: 'reconnected' }]);
    expectNoSecret(statuses, harness);
  });

  it('reports a reconnect Slack asked for as a drop and a return, and nothing when stopped', async () => {
    const { harness, statuses } = await startedSocket({ adapter: { socketPingTimeoutMs: 500 } });
    const { slack, adapter } = harness;
    slack.socket.disconnect('refresh_requested');
    await slack.waitFor((current) => current.socket.connections[1]?.open);
    await vi.waitFor(() => expect(statuses).toHaveLength(2));
    await adapter.stop();
    await slack.waitFor((current) => !current.socket.connections[1]!.open);
    expect(statuses.map((status) => status.kind)).toEqual(['disconnected', 'reconnected']);
    expectNoSecret(statuses, harness);
  });
});

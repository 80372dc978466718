/**
 * The Slack adapter in Socket Mode, through bolt and `@slack/socket-mode` against the fake
 * Slack's websocket: choosing the receiver, answers in threads, acknowledgement only once the
 * gateway has a message (none when it cannot take it, so Slack redelivers), button presses and
 * slash commands acknowledged at once, reconnects, tokens kept out of logs and errors, stop.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createSlackChannel } from '../../src/channels/slack/index.ts';
import { NotAcceptedError, type ChannelAction, type ChannelHandlers, type InboundMessage } from '../../src/channels/types.ts';
import { startFakeSlackServer, type FakeSlack } from '../fakes/fake-slack-server.ts';
import { startSlackSocketHarness, type SlackSocketHarness, type SlackSocketHarnessOptions } from './slack-socket-harness.ts';

const dm = { platform: 'slack', conversationId: 'D0DIRECT1' };
const channel = { platform: 'slack', conversationId: 'C0GENERAL' };
let harness: SlackSocketHarness | undefined;
let fake: FakeSlack | undefined;
let messages: InboundMessage[];
let actions: ChannelAction[];

async function start(handlers: Partial<ChannelHandlers> = {}, options: SlackSocketHarnessOptions = {}): Promise<SlackSocketHarness> {
  harness = await startSlackSocketHarness(options);
  messages = [];
  actions = [];
  await harness.adapter.start({
    onMessage: async (message) => void messages.push(message),
    onAction: async (action) => void actions.push(action),
    ...handlers,
  });
  return harness;
}

/**
 * Delivers a message in another conversation and waits for its acknowledgement: acks travel in
 * order on the socket, so an ack sent before this one has arrived by then.
 */
async function roundTrip(socketHarness: SlackSocketHarness): Promise<void> {
  await socketHarness.deliverAcked(socketHarness.slack.envelope(socketHarness.messageEvent({ platform: 'slack', conversationId: 'D0OTHER01' }, 'ping')));
}

afterEach(async () => {
  await harness?.adapter.stop();
  await harness?.close();
  await fake?.close();
  harness = undefined;
  fake = undefined;
});

describe('slack Socket Mode', () => {
  it('is chosen by an app token without a signing secret, and mounts no route', async () => {
    const { adapter, slack } = await start();
    expect(adapter.routes?.()).toEqual([]);
    expect(slack.callsOf('apps.connections.open')).toHaveLength(1);
    expect(slack.socket.connections).toMatchObject([{ open: true }]);
  });

  it('stays on HTTP events when a signing secret is given too', async () => {
    fake = await startFakeSlackServer();
    const adapter = createSlackChannel({ botToken: fake.bot.token, signingSecret: fake.signingSecret, appToken: fake.socket.appToken, apiUrl: fake.apiUrl, log: () => {} });
    await adapter.start({ onMessage: async () => {}, onAction: async () => {} });
    expect(adapter.routes?.()).toHaveLength(1);
    expect(fake.callsOf('apps.connections.open')).toEqual([]);
    await adapter.stop();
  });

  it('refuses to be created without a signing secret or an app-level token', () => {
    expect(() => createSlackChannel({ botToken: 'xoxb-1-2-abc' })).toThrow(/signingSecret .* or an appToken/);
    const misplaced = 'xoxb-9999-8888-BotTokenInTheAppTokenSlot';
    const error = (() => {
      try {
        createSlackChannel({ botToken: 'xoxb-1-2-abc', appToken: misplaced });
      } catch (caught) {
        return caught as Error;
      }
      return undefined;
    })();
    expect(error?.message).toMatch(/app-level token \(xapp-/);
    expect(error?.message).not.toContain(misplaced);
  });

  it('delivers a thread message and answers in that thread', async () => {
    const { adapter, slack, deliverAcked, messageEvent } = await start({
      onMessage: async (message) => {
        messages.push(message);
        await adapter.send(message.address, { text: `You said: ${message.text}` });
      },
    });
    const parent = slack.personMessage({ channel: 'C0GENERAL', text: 'A thread' });
    const event = messageEvent({ ...channel, threadId: String(parent.ts) }, `<@${slack.bot.userId}> hello over the socket`);
    const ack = await deliverAcked(slack.envelope(event));
    expect(ack).toEqual({ envelopeId: slack.socket.delivered[0]!.envelope_id, connection: 0 });
    expect(messages[0]).toMatchObject({
      id: event.ts,
      dedupeKey: `slack:C0GENERAL:${event.ts}`,
      sessionKey: `slack:channel:C0GENERAL:thread:${parent.ts}`,
      address: { platform: 'slack', conversationId: 'C0GENERAL', threadId: parent.ts },
      text: 'hello over the socket',
      mentioned: true,
    });
    expect(slack.botMessages('C0GENERAL', String(parent.ts)).map((message) => slack.display(message).text)).toEqual(['You said: hello over the socket']);
    expect(slack.botMessages('C0GENERAL', null)).toEqual([]);
  });

  it('acknowledges an event only after onMessage resolved', async () => {
    let release: () => void = () => {};
    const socketHarness = await start({
      onMessage: (message) => {
        messages.push(message);
        return message.text === 'hold on' ? new Promise<void>((resolve) => (release = resolve)) : Promise.resolve();
      },
    });
    const { slack, deliver, ackOf, messageEvent } = socketHarness;
    const envelope = deliver(slack.envelope(messageEvent(dm, 'hold on')));
    await vi.waitFor(() => expect(messages.map((message) => message.text)).toEqual(['hold on']));
    await roundTrip(socketHarness);
    expect(slack.socket.acked(envelope.envelope_id)).toBeUndefined();
    release();
    expect(await ackOf(envelope)).toMatchObject({ envelopeId: envelope.envelope_id });
  });

  it('leaves a refused event unacknowledged and takes the redelivery with the same dedupe key', async () => {
    const tried: InboundMessage[] = [];
    let refuse = true;
    const socketHarness = await start({
      onMessage: async (message) => {
        tried.push(message);
        if (refuse) throw new NotAcceptedError('gateway stopping');
        messages.push(message);
      },
    });
    const { slack, deliver, ackOf, messageEvent, logs } = socketHarness;
    const first = deliver(slack.envelope(messageEvent(dm, 'take me later')));
    await vi.waitFor(() => expect(logs.some((line) => line.includes('left for redelivery: gateway stopping'))).toBe(true));
    refuse = false;
    await roundTrip(socketHarness);
    expect(slack.socket.acked(first.envelope_id)).toBeUndefined();
    const again = slack.socket.redeliver(first);
    expect(again).toMatchObject({ retry_attempt: 1, retry_reason: 'timeout' });
    await ackOf(again);
    expect(messages.map((message) => message.text)).toEqual(['ping', 'take me later']);
    expect(messages[1]!.dedupeKey).toBe(tried[0]!.dedupeKey);
    expect(messages[1]!.id).toBe(tried[0]!.id);
  });

  it('logs other handler failures and acknowledges', async () => {
    const { slack, deliverAcked, messageEvent, logs } = await start({ onMessage: async () => Promise.reject(new Error('disk on fire')) });
    await deliverAcked(slack.envelope(messageEvent(dm, 'hello')));
    expect(logs.some((line) => line.includes('handler failed') && line.includes('disk on fire'))).toBe(true);
  });

  it('acknowledges a button press at once, without waiting for onAction', async () => {
    const { slack, adapter, deliverAcked } = await start({ onAction: (action) => new Promise<void>(() => void actions.push(action)) });
    const { ids } = await adapter.send(channel, { text: 'Run it?', buttons: [[{ label: 'Yes', data: 'yes' }]] });
    const ack = await deliverAcked(slack.blockAction({ channel: 'C0GENERAL', messageTs: ids[0]!, value: 'yes' }));
    expect(ack.payload).toBeUndefined();
    expect(slack.socket.delivered[0]!.type).toBe('interactive');
    await vi.waitFor(() => expect(actions).toHaveLength(1));
    expect(actions[0]).toMatchObject({ data: 'yes', messageId: ids[0], sessionKey: 'slack:channel:C0GENERAL', sender: { id: 'U0PERSON1' } });
  });

  it('maps a slash command and acknowledges it; a refusal is told to the person in the ack', async () => {
    let refuse = false;
    const { slack, deliverAcked } = await start({
      onMessage: async (message) => {
        if (refuse) throw new NotAcceptedError('busy');
        messages.push(message);
      },
    });
    const request = slack.slashCommand({ channel: 'C0GENERAL', text: 'status  all of it' });
    const ack = await deliverAcked(request);
    expect(slack.socket.delivered[0]).toMatchObject({ type: 'slash_commands', accepts_response_payload: true });
    expect(ack.payload).toBeUndefined();
    const trigger = request.kind === 'form' ? request.fields.trigger_id : '';
    expect(messages).toEqual([expect.objectContaining({ dedupeKey: `slack:command:${trigger}`, text: '/status all of it', command: { name: 'status', args: 'all of it' } })]);
    refuse = true;
    const refused = await deliverAcked(slack.slashCommand({ channel: 'C0GENERAL', text: 'new' }));
    expect(refused.payload).toEqual({ response_type: 'ephemeral', text: expect.stringContaining('try again') });
  });

  it('reconnects with a new URL after a disconnect message or a dropped socket, and keeps delivering', async () => {
    const { slack, deliverAcked, messageEvent } = await start({}, { adapter: { socketPingTimeoutMs: 500 } });
    await deliverAcked(slack.envelope(messageEvent(dm, 'before')));
    slack.socket.disconnect('refresh_requested');
    await slack.waitFor((current) => current.socket.connections.length === 2 && current.socket.connections[1]!.open);
    expect(slack.socket.connections[0]).toMatchObject({ open: false, disconnects: ['refresh_requested'] });
    expect((await deliverAcked(slack.envelope(messageEvent(dm, 'after refresh')))).connection).toBe(1);
    slack.socket.drop();
    await slack.waitFor((current) => current.socket.connections.length === 3 && current.socket.connections[2]!.open);
    expect((await deliverAcked(slack.envelope(messageEvent(dm, 'after drop')))).connection).toBe(2);
    expect(messages.map((message) => message.text)).toEqual(['before', 'after refresh', 'after drop']);
    expect(new Set(slack.socket.connections.map((connection) => connection.url)).size).toBe(3);
    expect(slack.callsOf('apps.connections.open')).toHaveLength(3);
  });

  it('stop() during a reconnect, before hello, closes the new socket without an unhandled rejection', async () => {
    const { adapter, slack } = await start({}, { adapter: { socketPingTimeoutMs: 500 } });
    slack.socket.holdHello();
    slack.socket.disconnect('refresh_requested');
    await slack.waitFor((current) => current.socket.connections[1]?.open);
    await adapter.stop();
    await slack.waitFor((current) => !current.socket.connections[1]!.open);
    expect(slack.socket.connections.map((connection) => [connection.open, connection.greeted])).toEqual([[false, true], [false, false]]);
  });

  it('keeps the app and bot tokens out of log lines and errors', async () => {
    fake = await startFakeSlackServer();
    const refusedToken = 'xapp-1-A0APP0001-999-RefusedAppToken';
    const logs: string[] = [];
    const refused = createSlackChannel({ botToken: fake.bot.token, appToken: refusedToken, apiUrl: fake.apiUrl, log: (line) => logs.push(line) });
    const error = await refused.start({ onMessage: async () => {}, onAction: async () => {} }).catch((caught: unknown) => caught as Error);
    expect(error).toMatchObject({ name: 'DeliveryError', retryable: false, message: 'Slack apps.connections.open failed: invalid_auth' });
    expect(JSON.stringify([error, String(error?.cause), logs])).not.toContain(refusedToken);

    const { slack, deliverAcked, messageEvent, logs: socketLogs } = await start({
      onMessage: async () => Promise.reject(new Error(`leaky ${harness!.slack.socket.appToken} and ${harness!.slack.bot.token}`)),
    });
    await deliverAcked(slack.envelope(messageEvent(dm, 'hello')));
    const failure = socketLogs.find((line) => line.includes('handler failed'));
    expect(failure).toContain('leaky');
    expect(socketLogs.join('\n')).not.toContain(slack.socket.appToken);
    expect(socketLogs.join('\n')).not.toContain(slack.bot.token);
  });

  it('stop() resolves and closes the socket; a new start opens a new one', async () => {
    const { adapter, slack } = await start();
    expect(slack.socket.connections[0]!.open).toBe(true);
    await adapter.stop();
    await slack.waitFor((current) => !current.socket.connections[0]!.open);
    expect(() => slack.socket.deliver(slack.envelope(slack.personMessage({ channel: 'D0DIRECT1', text: 'anyone?' })))).toThrow(/no open Socket Mode connection/);
    await adapter.start({ onMessage: async (message) => void messages.push(message), onAction: async () => {} });
    expect(slack.socket.connections.map((connection) => connection.open)).toEqual([false, true]);
  });
});

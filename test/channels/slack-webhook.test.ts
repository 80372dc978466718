/**
 * The Slack route: request signing (bad, missing or stale signatures refused before anything is
 * parsed or handed over), url_verification, acknowledgement only once the gateway has a message
 * (503 when it cannot take it, so Slack retries), redeliveries, button presses acknowledged at
 * once, slash commands.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { NotAcceptedError, type ChannelAction, type ChannelHandlers, type InboundMessage } from '../../src/channels/types.ts';
import { startSlackHarness, type SlackHarness } from './slack-harness.ts';

const dm = { platform: 'slack', conversationId: 'D0DIRECT1' };
const channel = { platform: 'slack', conversationId: 'C0GENERAL' };
let harness: SlackHarness;
let messages: InboundMessage[];
let actions: ChannelAction[];

async function start(handlers: Partial<ChannelHandlers> = {}, adapter: Parameters<typeof startSlackHarness>[0] = {}): Promise<SlackHarness> {
  harness = await startSlackHarness(adapter);
  messages = [];
  actions = [];
  await harness.adapter.start({
    onMessage: async (message) => void messages.push(message),
    onAction: async (action) => void actions.push(action),
    ...handlers,
  });
  return harness;
}

afterEach(async () => {
  await harness.adapter.stop();
  await harness.close();
});

describe('slack webhook route', () => {
  it('refuses a wrong, missing or stale signature with 401 and hands nothing over', async () => {
    const { slack, post, messageEvent, logs } = await start();
    const request = slack.envelope(messageEvent(dm, 'forged'));
    expect((await post(request, { signWith: 'not-the-secret' })).status).toBe(401);
    expect((await post(request, { unsigned: true })).status).toBe(401);
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
    expect((await post(request, { timestampSeconds: sixMinutesAgo })).status).toBe(401);
    expect(messages).toEqual([]);
    expect(logs.filter((line) => line.startsWith('slack: request refused'))).toHaveLength(3);
    expect(logs.join('\n')).toMatch(/signature mismatch[\s\S]*missing X-Slack-Signature[\s\S]*stale/);
    expect((await post(request)).status).toBe(200);
    expect(messages.map((message) => message.text)).toEqual(['forged']);
  });

  it('refuses a timestamp more than five minutes in the future, and takes one within them', async () => {
    const { slack, post, messageEvent, logs } = await start();
    const now = Math.floor(Date.now() / 1000);
    expect((await post(slack.envelope(messageEvent(dm, 'from the future')), { timestampSeconds: now + 301 })).status).toBe(401);
    expect(logs.join('\n')).toContain('more than five minutes in the future');
    expect(messages).toEqual([]);
    expect((await post(slack.envelope(messageEvent(dm, 'a clock a little ahead')), { timestampSeconds: now + 200 })).status).toBe(200);
    expect(messages.map((message) => message.text)).toEqual(['a clock a little ahead']);
  });

  it('checks the timestamp against the injected clock', async () => {
    const { slack, post, messageEvent } = await start({}, { adapter: { now: () => Date.now() + 10 * 60_000 } });
    expect((await post(slack.envelope(messageEvent(dm, 'from the past')))).status).toBe(401);
    expect(messages).toEqual([]);
  });

  it('answers url_verification with its challenge', async () => {
    const { post } = await start();
    const result = await post({ kind: 'json', body: { token: 'x', challenge: 'abc123challenge', type: 'url_verification' } });
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body)).toEqual({ challenge: 'abc123challenge' });
  });

  it('answers an event only after onMessage resolved', async () => {
    let release: () => void = () => {};
    const { slack, post, messageEvent } = await start({
      onMessage: (message) => {
        messages.push(message);
        return new Promise<void>((resolve) => (release = resolve));
      },
    });
    let answered = false;
    const answer = post(slack.envelope(messageEvent(dm, 'hold on'))).then((result) => {
      answered = true;
      return result;
    });
    await vi.waitFor(() => expect(messages).toHaveLength(1));
    expect(answered).toBe(false);
    release();
    expect((await answer).status).toBe(200);
  });

  it('answers 503 when the gateway cannot take a message, so Slack delivers it again', async () => {
    let refuse = true;
    const { slack, post, messageEvent, logs } = await start({
      onMessage: async (message) => {
        if (refuse) throw new NotAcceptedError('gateway stopping');
        messages.push(message);
      },
    });
    const request = slack.envelope(messageEvent(dm, 'take me later'));
    expect((await post(request)).status).toBe(503);
    expect(logs.some((line) => line.includes('left for redelivery: gateway stopping'))).toBe(true);
    refuse = false;
    expect((await post(request, { retryNum: 1, retryReason: 'http_error' })).status).toBe(200);
    expect(messages.map((message) => message.text)).toEqual(['take me later']);
  });

  it('logs other handler failures and answers 200', async () => {
    const { slack, post, messageEvent, logs } = await start({ onMessage: async () => Promise.reject(new Error('disk on fire')) });
    expect((await post(slack.envelope(messageEvent(dm, 'hello')))).status).toBe(200);
    expect(logs.some((line) => line.includes('handler failed') && line.includes('disk on fire'))).toBe(true);
  });

  it('answers 503 while the adapter is stopped', async () => {
    const { slack, post, messageEvent, adapter } = await start();
    await adapter.stop();
    expect((await post(slack.envelope(messageEvent(dm, 'anyone there?')))).status).toBe(503);
    expect(messages).toEqual([]);
  });

  it('keeps the dedupe key of a retried delivery and of the app_mention twin of a message', async () => {
    const { slack, post, messageEvent } = await start();
    const event = messageEvent(channel, `<@${slack.bot.userId}> what is up`);
    const first = slack.envelope(event);
    await post(first);
    await post(first, { retryNum: 1, retryReason: 'http_timeout' });
    await post(slack.envelope(slack.appMention(event)));
    expect(messages).toHaveLength(3);
    expect(new Set(messages.map((message) => message.dedupeKey))).toEqual(new Set([`slack:C0GENERAL:${event.ts}`]));
    expect(messages.map((message) => message.id)).toEqual([event.ts, event.ts, event.ts]);
    expect(messages.map((message) => [message.text, message.mentioned])).toEqual([['what is up', true], ['what is up', true], ['what is up', true]]);
  });

  it('acknowledges a button press at once, without waiting for onAction', async () => {
    const { slack, post, adapter } = await start({ onAction: (action) => new Promise<void>(() => void actions.push(action)) });
    const { ids } = await adapter.send(channel, { text: 'Run it?', buttons: [[{ label: 'Yes', data: 'yes' }]] });
    const result = await post(slack.blockAction({ channel: 'C0GENERAL', messageTs: ids[0]!, value: 'yes' }));
    expect(result).toMatchObject({ status: 200, body: '' });
    await vi.waitFor(() => expect(actions).toHaveLength(1));
    expect(actions[0]).toMatchObject({ data: 'yes', messageId: ids[0], sessionKey: 'slack:channel:C0GENERAL', sender: { id: 'U0PERSON1' } });
  });

  it('maps a slash command, waits for onMessage, and acknowledges with an empty 200', async () => {
    const { slack, post } = await start();
    const request = slack.slashCommand({ channel: 'C0GENERAL', text: 'status  all of it' });
    const result = await post(request);
    expect(result).toMatchObject({ status: 200, body: '' });
    expect(messages).toHaveLength(1);
    const trigger = request.kind === 'form' ? request.fields.trigger_id : '';
    expect(messages[0]).toMatchObject({
      id: trigger,
      dedupeKey: `slack:command:${trigger}`,
      sessionKey: 'slack:channel:C0GENERAL',
      scope: 'group',
      text: '/status all of it',
      command: { name: 'status', args: 'all of it' },
      mentioned: true,
      sender: { id: 'U0PERSON1', name: 'ada' },
    });
    await post(slack.slashCommand({ channel: 'D0DIRECT1', text: '' }));
    expect(messages[1]).toMatchObject({ sessionKey: 'slack:dm:U0PERSON1', scope: 'dm', text: '/help', command: { name: 'help', args: '' } });
  });

  it('tells the person to try again when the gateway cannot take a slash command', async () => {
    const { slack, post } = await start({ onMessage: async () => Promise.reject(new NotAcceptedError('busy')) });
    const result = await post(slack.slashCommand({ channel: 'C0GENERAL', text: 'new' }));
    expect(result.status).toBe(200);
    expect(JSON.parse(result.body)).toEqual({ response_type: 'ephemeral', text: expect.stringContaining('try again') });
  });

  it('calls auth.test once at start, never per event', async () => {
    const { slack, post, messageEvent } = await start();
    await post(slack.envelope(messageEvent(dm, 'one')));
    await post(slack.envelope(messageEvent(channel, `<@${slack.bot.userId}> two`)));
    expect(messages).toHaveLength(2);
    expect(slack.callsOf('auth.test')).toHaveLength(1);
  });

  it('fails to start with a token Slack refuses', async () => {
    harness = await startSlackHarness({ adapter: { botToken: 'xoxb-0000-refused-token' } });
    const error = await harness.adapter.start({ onMessage: async () => {}, onAction: async () => {} }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: 'DeliveryError', retryable: false, message: 'Slack auth.test failed: invalid_auth' });
    expect(harness.logs.join('\n')).not.toContain('xoxb-0000-refused-token');
  });
});

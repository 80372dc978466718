/**
 * Slack on Workers, inside workerd: the reply adapter against the fake Slack Web API, then the
 * Events API endpoint (signature, challenge, events taken on record in their conversation's object
 * once). The adapter's tests come first: they script the fake's next answers, which the replies of
 * the endpoint's turns (run by the objects' alarms) must not take. The endpoint's messages are
 * `/help`, which a conversation answers itself, so no turn calls the shared fake model.
 */
import { env, SELF } from 'cloudflare:test';
import { describe, expect, it } from 'vitest';
import { DeliveryError, type ConversationAddress } from '../../src/channels/types.ts';
import { replyChannelFor } from '../../src/worker/reply-channels.ts';
import { slackEvents } from '../../src/worker/slack-events.ts';
import type { WorkerEnv } from '../../src/worker/worker-env.ts';
import { encodeRequest, signature, urlVerification, type SlackRequest } from '../fakes/fake-slack-events.ts';
import { callFake, eventually, readFake } from './support/fakes.ts';
import { approveGroup } from './support/groups.ts';
import { nothingKept, onRecord } from './support/objects.ts';

const workerEnv = env as WorkerEnv;

interface FakeMessage {
  ts: string;
  text: string;
  threadTs?: string;
  edits: number;
}

const botMessages = (channel: string) => callFake<FakeMessage[]>('slack', 'botMessages', channel);

/** The error `promise` rejects with. */
async function failure(promise: Promise<unknown>): Promise<DeliveryError> {
  const error = await promise.then(() => undefined, (reason: unknown) => reason);
  expect(error).toBeInstanceOf(DeliveryError);
  return error as DeliveryError;
}

describe('the Slack reply adapter on Workers', () => {
  const slack = () => replyChannelFor('slack', workerEnv)!;

  it('sends Markdown as mrkdwn that the fake Slack shows, in the thread, and edits it', async () => {
    const address: ConversationAddress = { platform: 'slack', conversationId: 'C0WRKREPLY1' };
    const { ids } = await slack().send(address, { text: '**Done**: see [docs](https://example.com) & `a<b`' });
    expect(ids).toHaveLength(1);
    expect((await botMessages('C0WRKREPLY1')).map((message) => message.text)).toEqual(['*Done*: see <https://example.com|docs> &amp; `a&lt;b`']);

    await slack().edit(address, ids[0]!, { text: '_edited_' });
    expect(await botMessages('C0WRKREPLY1')).toMatchObject([{ ts: ids[0], text: '_edited_', edits: 1 }]);

    const inThread = await slack().send({ ...address, threadId: ids[0]! }, { text: 'a reply in the thread' });
    expect((await botMessages('C0WRKREPLY1')).find((message) => message.ts === inThread.ids[0])).toMatchObject({ threadTs: ids[0], text: 'a reply in the thread' });
  });

  it('splits a long text, edits the preview it replaces, and sends only the parts not delivered before', async () => {
    const address: ConversationAddress = { platform: 'slack', conversationId: 'C0WRKREPLY2' };
    const preview = await slack().send(address, { text: 'thinking…' });
    const long = ['first paragraph', 'x'.repeat(2_990), 'y'.repeat(2_990)].join('\n\n');
    const parts: string[][] = [];
    const sent = await slack().send(address, { text: long, replace: preview.ids[0]!, onPart: (delivered) => parts.push([...delivered]) });
    expect(sent.ids).toHaveLength(3);
    expect(sent.ids[0]).toBe(preview.ids[0]);
    expect(parts.at(-1)).toEqual(sent.ids);
    const resent = await slack().send(address, { text: long, skipParts: 2 });
    expect(resent.ids).toHaveLength(1);
    expect((await botMessages('C0WRKREPLY2')).map((message) => message.text.slice(0, 5))).toEqual(['first', 'xxxxx', 'yyyyy', 'yyyyy']);
  });

  it('maps Slack failures to delivery errors: rate limits with their wait, refusals final, no token in the text', async () => {
    const address: ConversationAddress = { platform: 'slack', conversationId: 'C0WRKREPLY3' };
    await callFake('slack', 'failNext', 'chat.postMessage', { status: 429, retryAfter: 7 });
    const limited = await failure(slack().send(address, { text: 'hi' }));
    expect(limited).toMatchObject({ retryable: true, retryAfterMs: 7_000 });

    await callFake('slack', 'failNext', 'chat.postMessage', { status: 503 });
    expect(await failure(slack().send(address, { text: 'hi' }))).toMatchObject({ retryable: true });

    await callFake('slack', 'failNext', 'chat.postMessage', { error: 'channel_not_found' });
    const refused = await failure(slack().send(address, { text: 'hi' }));
    expect(refused).toMatchObject({ retryable: false });
    expect(refused.message).toContain('channel_not_found');

    const wrongToken = replyChannelFor('slack', { ...workerEnv, SLACK_BOT_TOKEN: 'xoxb-not-the-fakes-token' })!;
    const unauthorised = await failure(wrongToken.send(address, { text: 'hi' }));
    expect(unauthorised.message).toContain('invalid_auth');
    expect(unauthorised.message).not.toContain('xoxb-not-the-fakes-token');
    expect(await botMessages('C0WRKREPLY3')).toEqual([]);
  });
});

describe('the Slack Events API endpoint on Workers', () => {
  const secret = () => workerEnv.SLACK_SIGNING_SECRET!;
  const now = () => Math.floor(Date.now() / 1000);

  /** POSTs `request` to the Worker as Slack would, signed (or not) as `options` say. */
  async function post(request: SlackRequest | string, options: { timestamp?: number; secret?: string; retryNum?: number; unsigned?: boolean } = {}): Promise<Response> {
    const { rawBody, contentType } = typeof request === 'string' ? { rawBody: request, contentType: 'application/json' } : encodeRequest(request);
    const timestamp = options.timestamp ?? now();
    const headers: Record<string, string> = { 'content-type': contentType, 'x-slack-request-timestamp': String(timestamp) };
    if (!options.unsigned) headers['x-slack-signature'] = signature(options.secret ?? secret(), timestamp, rawBody);
    if (options.retryNum !== undefined) Object.assign(headers, { 'x-slack-retry-num': String(options.retryNum), 'x-slack-retry-reason': 'http_timeout' });
    return SELF.fetch('http://example.com/webhooks/slack', { method: 'POST', headers, body: rawBody });
  }

  /** POSTs `request`, signed, to the endpoint with conversations whose objects cannot take anything. */
  async function postToRefusing(request: SlackRequest): Promise<Response> {
    const { rawBody, contentType } = encodeRequest(request);
    const timestamp = now();
    const refusing = {
      idFromName: (name: string) => workerEnv.CONVERSATIONS.idFromName(name),
      get: () => ({ accept: () => Promise.reject(new Error('storage unavailable')) }),
    } as unknown as WorkerEnv['CONVERSATIONS'];
    const headers = { 'content-type': contentType, 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature(secret(), timestamp, rawBody) };
    return slackEvents(new Request('http://example.com/webhooks/slack', { method: 'POST', headers, body: rawBody }), { ...workerEnv, CONVERSATIONS: refusing });
  }

  /** A person's message event in its envelope, from the fake Slack. */
  async function messageEvent(options: { channel: string; text: string; from?: { id: string; name?: string }; subtype?: string }): Promise<{ event: Record<string, unknown>; request: SlackRequest }> {
    const event = await callFake<Record<string, unknown>>('slack', 'personMessage', options);
    return { event, request: await callFake<SlackRequest>('slack', 'envelope', event) };
  }

  it('answers url_verification with its challenge', async () => {
    const response = await post(urlVerification('c-123'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ challenge: 'c-123' });
  });

  it('refuses a bad signature, a missing one and a stale or future timestamp (401) before taking anything', async () => {
    const { request } = await messageEvent({ channel: 'D0WRKSIG1', text: '/help', from: { id: 'U0WRKSIG1' } });
    expect((await post(request, { secret: 'not-the-signing-secret' })).status).toBe(401);
    expect((await post(request, { unsigned: true })).status).toBe(401);
    expect((await post(request, { timestamp: now() - 6 * 60 })).status).toBe(401);
    expect((await post(request, { timestamp: now() + 6 * 60 })).status).toBe(401);
    expect(await nothingKept('slack:dm:U0WRKSIG1')).toBe(true);
  });

  it('answers 400 to a body that is not JSON, and 503 when no signing secret is configured', async () => {
    expect((await post('{not json')).status).toBe(400);
    const unconfigured = await slackEvents(new Request('http://example.com/webhooks/slack', { method: 'POST', body: '{}' }), { ...workerEnv, SLACK_SIGNING_SECRET: undefined });
    expect(unconfigured.status).toBe(503);
    expect(await unconfigured.text()).toContain('SLACK_SIGNING_SECRET');
  });

  it('takes a person\'s message on record in its conversation before answering 200, and a redelivery once', async () => {
    const { event, request } = await messageEvent({ channel: 'D0WRKMSG1', text: '/help', from: { id: 'U0WRKMSG1', name: 'Ada' } });
    const dedupeKey = `slack:D0WRKMSG1:${String(event.ts)}`;
    expect((await post(request)).status).toBe(200);
    expect((await post(request, { retryNum: 1 })).status).toBe(200);
    const stub = workerEnv.CONVERSATIONS.get(workerEnv.CONVERSATIONS.idFromName('slack:dm:U0WRKMSG1'));
    expect((await stub.waiting()).filter((waiting) => waiting.key === dedupeKey).length).toBeLessThanOrEqual(1);
    expect(await onRecord('slack:dm:U0WRKMSG1', dedupeKey)).toBe(true);
  });

  it('acknowledges what is not a message to answer (the bot\'s own, an edit, another event) without taking it', async () => {
    const bot = await readFake<{ userId: string }>('slack', 'bot');
    const own = await messageEvent({ channel: 'C0WRKOWN1', text: '/help', from: { id: bot.userId } });
    const edit = await messageEvent({ channel: 'C0WRKOWN1', text: '/help', subtype: 'message_changed' });
    const reaction = await callFake<SlackRequest>('slack', 'envelope', { type: 'reaction_added', user: 'U0PERSON1', reaction: 'eyes', item: { type: 'message', channel: 'C0WRKOWN1', ts: '1.000001' } });
    for (const request of [own.request, edit.request, reaction]) expect((await post(request)).status).toBe(200);
    expect(await nothingKept('slack:channel:C0WRKOWN1')).toBe(true);
  });

  it('takes a slash command as the Node channel does and answers it in the conversation; a non-admin in a channel is refused /new there', async () => {
    const admin = { id: 'U0WRKTURN1', name: 'Ada' };
    const dm = await callFake<SlackRequest>('slack', 'slashCommand', { channel: 'D0WRKCMD1', text: 'status', from: admin });
    const answered = await post(dm);
    expect(answered.status).toBe(200);
    // An empty acknowledgement: the answer comes as a message in the conversation.
    expect(await answered.text()).toBe('');
    const status = await eventually(() => botMessages('D0WRKCMD1'), (list) => list.some((message) => message.text.includes('Runtime: Cloudflare Workers')));
    expect(status.some((message) => message.text.includes('Runtime: Cloudflare Workers'))).toBe(true);

    // In a channel, starting anew is an admin's: a person who is not one is told so (in a channel an
    // admin approved: groupPolicy approval is the default).
    await approveGroup({ platform: 'slack', kind: 'channel', id: 'C0WRKCMD2' }, `slack:${admin.id}`);
    const member = { id: 'U0WRKCMD2', name: 'Bea' };
    expect((await post(await callFake<SlackRequest>('slack', 'slashCommand', { channel: 'C0WRKCMD2', text: 'new', from: member }))).status).toBe(200);
    const refused = await eventually(() => botMessages('C0WRKCMD2'), (list) => list.length > 0);
    expect(refused.map((message) => message.text)).toContain('In a group, only an admin may start a new conversation.');
    expect((await post(await callFake<SlackRequest>('slack', 'slashCommand', { channel: 'C0WRKCMD2', text: 'new', from: admin }))).status).toBe(200);
    const started = await eventually(() => botMessages('C0WRKCMD2'), (list) => list.some((message) => message.text === 'Started a new conversation.'));
    expect(started.map((message) => message.text)).toContain('Started a new conversation.');
  });

  it('refuses an unsigned slash command, and tells the sender alone when one cannot be taken', async () => {
    const command = await callFake<SlackRequest>('slack', 'slashCommand', { channel: 'D0WRKCMD3', text: 'status', from: { id: 'U0WRKCMD3' } });
    expect((await post(command, { unsigned: true })).status).toBe(401);
    expect(await nothingKept('slack:dm:U0WRKCMD3')).toBe(true);
    const response = await postToRefusing(command);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ response_type: 'ephemeral', text: 'I could not take that just now. Please try again in a moment.' });
  });

  it('acknowledges a button press without taking anything (the Worker sends no buttons)', async () => {
    const press = { kind: 'form', fields: { payload: JSON.stringify({ type: 'block_actions', user: { id: 'U0WRKBTN1' }, channel: { id: 'D0WRKBTN1' }, actions: [{ action_id: 'approve', value: 'x' }] }) } } satisfies SlackRequest;
    expect((await post(press)).status).toBe(200);
    expect(await nothingKept('slack:dm:U0WRKBTN1')).toBe(true);
  });

  it('answers 503 when the conversation cannot take the message, so Slack delivers it again', async () => {
    const { request } = await messageEvent({ channel: 'D0WRKDOWN', text: '/help', from: { id: 'U0WRKDOWN' } });
    const response = await postToRefusing(request);
    expect(response.status).toBe(503);
  });
});

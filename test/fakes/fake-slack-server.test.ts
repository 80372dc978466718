/**
 * The fake Slack itself, driven by the real WebClient (bolt's `webApi`) and plain HTTP: answers
 * and errors as the Web API gives them, messages as they stand after updates, files behind the
 * token, and requests signed the way bolt verifies them.
 */
import { verifySlackRequest, webApi } from '@slack/bolt';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { encodeRequest, signature } from './fake-slack-events.ts';
import { startFakeSlackServer, type FakeSlack } from './fake-slack-server.ts';

let slack: FakeSlack;
let client: webApi.WebClient;

beforeEach(async () => {
  slack = await startFakeSlackServer();
  client = new webApi.WebClient(slack.bot.token, { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 }, rejectRateLimitedCalls: true, logLevel: webApi.LogLevel.ERROR });
});

afterEach(async () => {
  await slack.close();
});

async function platformError(promise: Promise<unknown>): Promise<string | undefined> {
  const error = await promise.then(() => undefined, (caught: unknown) => caught);
  return (error as { data?: { error?: string } } | undefined)?.data?.error;
}

describe('fake Slack Web API', () => {
  it('answers auth.test for its token and refuses others', async () => {
    expect(await client.auth.test()).toMatchObject({ ok: true, user_id: 'U0BOT0001', bot_id: 'B0BOT0001', team_id: 'T0FAKE001' });
    const stranger = new webApi.WebClient('xoxb-wrong', { slackApiUrl: slack.apiUrl, retryConfig: { retries: 0 }, logLevel: webApi.LogLevel.ERROR });
    expect(await platformError(stranger.auth.test())).toBe('invalid_auth');
    const raw = await fetch(`${slack.apiUrl}auth.test`, { method: 'POST' });
    expect([raw.status, await raw.json()]).toEqual([200, { ok: false, error: 'not_authed' }]);
    const viaJson = await fetch(`${slack.apiUrl}chat.postMessage`, {
      method: 'POST',
      headers: { authorization: `Bearer ${slack.bot.token}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify({ channel: 'C1', text: 'json body' }),
    });
    expect(await viaJson.json()).toMatchObject({ ok: true, channel: 'C1', message: { text: 'json body', bot_id: 'B0BOT0001' } });
  });

  it('keeps messages by channel and thread as they stand after updates, with their blocks', async () => {
    const posted = await client.chat.postMessage({ channel: 'C1', text: 'first', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '*first*' } }] });
    const reply = await client.chat.postMessage({ channel: 'C1', text: 'in thread', thread_ts: posted.ts! });
    expect(slack.botMessages('C1', null).map((message) => message.ts)).toEqual([posted.ts]);
    expect(slack.botMessages('C1', posted.ts!).map((message) => message.ts)).toEqual([reply.ts]);
    await client.chat.update({ channel: 'C1', ts: posted.ts!, text: 'changed' });
    expect(slack.display(slack.message('C1', posted.ts!)!).text).toBe('first');
    await client.chat.update({ channel: 'C1', ts: posted.ts!, text: 'changed', blocks: [] });
    expect(slack.message('C1', posted.ts!)).toMatchObject({ text: 'changed', blocks: [], edits: 2 });
    expect(slack.display(slack.message('C1', posted.ts!)!).text).toBe('changed');
  });

  it('refuses what Slack refuses, with its error codes', async () => {
    expect(await platformError(client.chat.postMessage({ channel: 'C1', text: ' ' }))).toBe('no_text');
    expect(await platformError(client.chat.postMessage({ channel: 'C1', text: 'x'.repeat(40_001) }))).toBe('msg_too_long');
    const button = (actionId: string) => ({ type: 'button' as const, action_id: actionId, text: { type: 'plain_text' as const, text: 'Go' }, value: 'go' });
    expect(await platformError(client.chat.postMessage({ channel: 'C1', text: 't', blocks: [{ type: 'actions', elements: [button('a'), button('a')] }] }))).toBe('invalid_blocks');
    expect(await platformError(client.chat.postMessage({ channel: 'C1', text: 't', blocks: [{ type: 'section', text: { type: 'mrkdwn', text: 'y'.repeat(3001) } }] }))).toBe('invalid_blocks');
    expect(await platformError(client.chat.update({ channel: 'C1', ts: '1.1', text: 'x' }))).toBe('message_not_found');
    const person = slack.personMessage({ channel: 'C1', text: 'mine' });
    expect(await platformError(client.chat.update({ channel: 'C1', ts: String(person.ts), text: 'x' }))).toBe('cant_update_message');
    await client.reactions.add({ channel: 'C1', timestamp: String(person.ts), name: 'eyes' });
    expect(await platformError(client.reactions.add({ channel: 'C1', timestamp: String(person.ts), name: 'eyes' }))).toBe('already_reacted');
    await client.reactions.remove({ channel: 'C1', timestamp: String(person.ts), name: 'eyes' });
    expect(await platformError(client.reactions.remove({ channel: 'C1', timestamp: String(person.ts), name: 'eyes' }))).toBe('no_reaction');
    expect(await platformError(client.apiCall('no.such.method'))).toBe('unknown_method');
  });

  it('scripts failures: error codes, 429 with Retry-After, dropped connections', async () => {
    slack.failNext('chat.postMessage', { error: 'channel_not_found' });
    expect(await platformError(client.chat.postMessage({ channel: 'C1', text: 'x' }))).toBe('channel_not_found');
    slack.failNext('chat.postMessage', { status: 429, retryAfter: 7 });
    const limited = await client.chat.postMessage({ channel: 'C1', text: 'x' }).catch((error: unknown) => error);
    expect(limited).toMatchObject({ code: webApi.ErrorCode.RateLimitedError, retryAfter: 7 });
    const raw = await (slack.failNext('auth.test', { status: 429, retryAfter: 3 }), fetch(`${slack.apiUrl}auth.test`, { method: 'POST' }));
    expect([raw.status, raw.headers.get('retry-after'), await raw.json()]).toEqual([429, '3', { ok: false, error: 'ratelimited' }]);
    slack.failNext('chat.postMessage', { dropConnection: true });
    expect(await client.chat.postMessage({ channel: 'C1', text: 'x' }).catch((error: unknown) => (error as { code?: string }).code)).toBe(webApi.ErrorCode.RequestError);
    expect(slack.callsOf('chat.postMessage').map((call) => [call.status, call.error])).toEqual([[200, 'channel_not_found'], [429, 'ratelimited'], [0, undefined]]);
    expect(slack.botMessages('C1')).toEqual([]);
  });

  it('records ephemeral notices and response_url posts, and waits for them', async () => {
    const waited = slack.waitFor((fake) => fake.ephemerals[0]);
    await client.chat.postEphemeral({ channel: 'C1', user: 'U0PERSON1', text: 'only you', thread_ts: '1.2' });
    expect(await waited).toEqual({ channel: 'C1', user: 'U0PERSON1', text: 'only you', threadTs: '1.2' });
    const request = slack.slashCommand({ channel: 'C1', text: 'status' });
    const responseUrl = request.kind === 'form' ? request.fields.response_url! : '';
    await fetch(responseUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: 'later answer' }) });
    expect(slack.responses).toEqual([{ text: 'later answer', responseUrl, body: { text: 'later answer' } }]);
  });

  it('serves private files only with the bot token', async () => {
    const file = slack.hostFile({ name: 'notes.txt', mimetype: 'text/plain', bytes: new TextEncoder().encode('secret notes') });
    const url = String(file.url_private_download);
    const anonymous = await fetch(url, { redirect: 'manual' });
    expect(anonymous.status).toBe(302);
    const authorised = await fetch(url, { headers: { authorization: `Bearer ${slack.bot.token}` } });
    expect(await authorised.text()).toBe('secret notes');
  });

  it('signs requests the way bolt verifies them', () => {
    const { rawBody } = encodeRequest(slack.envelope(slack.personMessage({ channel: 'C1', text: 'hi' })));
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = { 'x-slack-signature': signature(slack.signingSecret, timestamp, rawBody), 'x-slack-request-timestamp': timestamp };
    expect(() => verifySlackRequest({ signingSecret: slack.signingSecret, body: rawBody, headers })).not.toThrow();
    expect(() => verifySlackRequest({ signingSecret: 'other', body: rawBody, headers })).toThrow(/signature mismatch/);
  });
});

/**
 * The fake Slack's Socket Mode, driven by a plain websocket client: the app token only for
 * `apps.connections.open` (and only for it), one-use URLs, `hello`, envelopes built from the
 * request builders, acknowledgements, redelivery and `disconnect`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { startFakeSlackServer, type FakeSlack } from './fake-slack-server.ts';

let slack: FakeSlack;
const clients: WebSocket[] = [];

async function callApi(method: string, token: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${slack.apiUrl}${method}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-www-form-urlencoded' }, body: '' });
  return (await response.json()) as Record<string, unknown>;
}

/** Opens a socket and resolves with it and its first message. */
function connect(url: string): Promise<{ socket: WebSocket; first: Record<string, unknown>; next(): Promise<Record<string, unknown>> }> {
  const socket = new WebSocket(url);
  clients.push(socket);
  const queue: Record<string, unknown>[] = [];
  const waiting: ((message: Record<string, unknown>) => void)[] = [];
  socket.on('message', (data) => {
    const message = JSON.parse(String(data)) as Record<string, unknown>;
    const waiter = waiting.shift();
    if (waiter) waiter(message);
    else queue.push(message);
  });
  const next = () => new Promise<Record<string, unknown>>((resolve) => (queue.length > 0 ? resolve(queue.shift()!) : waiting.push(resolve)));
  return new Promise((resolve, reject) => {
    socket.once('error', reject);
    void next().then((first) => resolve({ socket, first, next }));
  });
}

afterEach(async () => {
  for (const client of clients.splice(0)) client.terminate();
  await slack.close();
});

describe('fake Slack Socket Mode', () => {
  it('opens a connection with the app token only, as Slack does', async () => {
    slack = await startFakeSlackServer();
    expect(await callApi('apps.connections.open', slack.bot.token)).toEqual({ ok: false, error: 'not_allowed_token_type' });
    expect(await callApi('apps.connections.open', 'xapp-1-unknown')).toEqual({ ok: false, error: 'invalid_auth' });
    expect(await callApi('chat.postMessage', slack.socket.appToken)).toEqual({ ok: false, error: 'not_allowed_token_type' });
    const opened = await callApi('apps.connections.open', slack.socket.appToken);
    expect(opened).toEqual({ ok: true, url: expect.stringMatching(/^ws:\/\/127\.0\.0\.1:\d+\/link\/\?ticket=/) });
  });

  it('says hello, delivers envelopes, records acks, redelivers and asks to reconnect', async () => {
    slack = await startFakeSlackServer();
    const { url } = (await callApi('apps.connections.open', slack.socket.appToken)) as { url: string };
    const { socket, first, next } = await connect(url);
    expect(first).toMatchObject({ type: 'hello', num_connections: 1, connection_info: { app_id: slack.bot.appId } });
    await expect(connect(url)).rejects.toThrow(/401/);

    const event = slack.socket.deliver(slack.envelope(slack.personMessage({ channel: 'D0DIRECT1', text: 'hi' })));
    expect(await next()).toEqual(event);
    expect(event).toMatchObject({ type: 'events_api', retry_attempt: 0, accepts_response_payload: false, payload: { type: 'event_callback', event: { text: 'hi' } } });
    const again = slack.socket.redeliver(event);
    expect(await next()).toMatchObject({ payload: event.payload, retry_attempt: 1, retry_reason: 'timeout' });
    expect(again.envelope_id).not.toBe(event.envelope_id);

    const command = slack.socket.deliver(slack.slashCommand({ channel: 'C0GENERAL', text: 'status' }));
    expect(await next()).toMatchObject({ type: 'slash_commands', accepts_response_payload: true, payload: { command: '/operator', text: 'status' } });
    socket.send(JSON.stringify({ envelope_id: event.envelope_id }));
    socket.send(JSON.stringify({ envelope_id: command.envelope_id, payload: { text: 'ok' } }));
    await slack.waitFor((fake) => fake.socket.acks.length === 2);
    expect(slack.socket.acked(event.envelope_id)).toEqual({ envelopeId: event.envelope_id, connection: 0 });
    expect(slack.socket.acked(command.envelope_id)).toEqual({ envelopeId: command.envelope_id, connection: 0, payload: { text: 'ok' } });
    expect(slack.socket.acked(again.envelope_id)).toBeUndefined();

    slack.socket.disconnect('warning');
    expect(await next()).toMatchObject({ type: 'disconnect', reason: 'warning' });
    socket.close();
    await slack.waitFor((fake) => !fake.socket.connections[0]!.open);
    expect(() => slack.socket.deliver(slack.slashCommand({ channel: 'C0GENERAL', text: 'x' }))).toThrow(/no open Socket Mode connection/);
  });
});

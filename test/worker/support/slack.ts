/** Slack events posted to the Worker's webhook inside workerd, signed as Slack signs them. */
import { SELF } from 'cloudflare:test';
import { encodeRequest, signature, type SlackRequest } from '../../fakes/fake-slack-events.ts';
import { callFake, readFake } from './fakes.ts';

/** Posts `event` (from the fake Slack's builders) to `/webhooks/slack`, signed; resolves to the HTTP status. */
export async function postSlackEvent(event: Record<string, unknown>): Promise<number> {
  const { rawBody } = encodeRequest(await callFake<SlackRequest>('slack', 'envelope', event));
  const timestamp = Math.floor(Date.now() / 1000);
  const secret = await readFake<string>('slack', 'signingSecret');
  const response = await SELF.fetch('http://example.com/webhooks/slack', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature(secret, timestamp, rawBody) },
    body: rawBody,
  });
  return response.status;
}

/** Slack events posted to the Worker's webhook inside workerd, signed as Slack signs them. */
import { env, SELF } from 'cloudflare:test';
import { slackEvents } from '../../../src/worker/slack-events.ts';
import type { WorkerEnv } from '../../../src/worker/worker-env.ts';
import { encodeRequest, signature, type SlackRequest } from '../../fakes/fake-slack-events.ts';
import { callFake, readFake } from './fakes.ts';

/**
 * Posts `event` (from the fake Slack's builders) to `/webhooks/slack`, signed; resolves to the
 * HTTP status. With `variables`, the endpoint runs with them over the Worker's own (a setting the
 * tests' Worker does not have, such as `SLACK_REPLY_IN_THREAD`); its objects are the Worker's.
 */
export async function postSlackEvent(event: Record<string, unknown>, variables?: Partial<WorkerEnv>): Promise<number> {
  const { rawBody } = encodeRequest(await callFake<SlackRequest>('slack', 'envelope', event));
  const timestamp = Math.floor(Date.now() / 1000);
  const secret = await readFake<string>('slack', 'signingSecret');
  const request = new Request('http://example.com/webhooks/slack', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-slack-request-timestamp': String(timestamp), 'x-slack-signature': signature(secret, timestamp, rawBody) },
    body: rawBody,
  });
  const response = variables ? await slackEvents(request, { ...(env as WorkerEnv), ...variables }) : await SELF.fetch(request);
  await response.body?.cancel();
  return response.status;
}

/**
 * Slack's request timestamp must be within five minutes of this machine's clock either way
 * (Slack's rule): older is a replay, newer a request signed to be replayed later. Checked by
 * `refusalOf` on its own at the exact edges, and through the real Slack adapter's route with the
 * real bolt over the fake Slack, with the adapter's clock fixed so the edges are exact there too.
 * The refusals are logged with the reason and how far the clocks differ, never the signature or
 * the signing secret.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { refusalOf, maxClockSkewSeconds } from '../../src/channels/slack/verify-request.ts';
import type { InboundMessage } from '../../src/channels/types.ts';
import { signature } from '../fakes/fake-slack-events.ts';
import { startSlackHarness, type SlackHarness } from './slack-harness.ts';

const secret = 'timestamp-test-signing-secret-0123456789';
/** 2026-11-24T12:00:00.500Z: half a second into a second, so whole-second rounding shows. */
const nowMs = Date.parse('2026-11-24T12:00:00.500Z');
const nowSeconds = Math.floor(nowMs / 1000);

function signedHeaders(timestampSeconds: number, rawBody: string, signingSecret = secret): Headers {
  return new Headers({ 'x-slack-request-timestamp': String(timestampSeconds), 'x-slack-signature': signature(signingSecret, timestampSeconds, rawBody) });
}

describe('refusalOf', () => {
  const rawBody = '{"type":"event_callback"}';

  it('allows five minutes either way, to the second', () => {
    expect(maxClockSkewSeconds).toBe(300);
    for (const offset of [-300, -200, 0, 200, 300]) expect(refusalOf(rawBody, signedHeaders(nowSeconds + offset, rawBody), secret, nowMs), `offset ${offset}`).toBeUndefined();
  });

  it('refuses a timestamp more than five minutes in the future, saying how far ahead', () => {
    const refusal = refusalOf(rawBody, signedHeaders(nowSeconds + 301, rawBody), secret, nowMs);
    expect(refusal).toBe("X-Slack-Request-Timestamp is more than five minutes in the future (301 s ahead of this machine's clock; is either clock wrong?)");
    expect(refusalOf(rawBody, signedHeaders(nowSeconds + 86_400, rawBody), secret, nowMs)).toMatch(/86400 s ahead/);
  });

  it('refuses a timestamp more than five minutes old, saying how far behind', () => {
    const refusal = refusalOf(rawBody, signedHeaders(nowSeconds - 301, rawBody), secret, nowMs);
    expect(refusal).toBe("X-Slack-Request-Timestamp is more than five minutes old (stale: 301 s behind this machine's clock; a replay, or a clock is wrong)");
  });

  it('checks the signature of a timestamp in range, and never names the secret or the signature', () => {
    const headers = signedHeaders(nowSeconds + 100, rawBody, 'another-secret');
    const refusal = refusalOf(rawBody, headers, secret, nowMs);
    expect(refusal).toMatch(/signature mismatch/);
    for (const other of [refusalOf(rawBody, signedHeaders(nowSeconds + 301, rawBody), secret, nowMs), refusal]) {
      expect(other).not.toContain(secret);
      expect(other).not.toContain(headers.get('x-slack-signature')!.slice(3));
    }
  });
});

describe('the Slack route', () => {
  let harness: SlackHarness;
  let messages: InboundMessage[];

  afterEach(async () => {
    await harness.adapter.stop();
    await harness.close();
  });

  async function start(): Promise<SlackHarness> {
    harness = await startSlackHarness({ adapter: { now: () => nowMs } });
    messages = [];
    await harness.adapter.start({ onMessage: async (message) => void messages.push(message), onAction: async () => undefined });
    return harness;
  }

  it('refuses (401) a request signed more than five minutes ahead or behind, takes one within, and logs why without secrets', async () => {
    const { slack, post, messageEvent, logs } = await start();
    const dm = { platform: 'slack', conversationId: 'D0DIRECT1' };
    const send = (text: string, offset: number) => post(slack.envelope(messageEvent(dm, text)), { timestampSeconds: nowSeconds + offset });
    expect((await send('ahead 301', 301)).status).toBe(401);
    expect((await send('behind 301', -301)).status).toBe(401);
    expect(messages).toEqual([]);
    for (const offset of [300, 200, -200, -300]) expect((await send(`within ${offset}`, offset)).status, `offset ${offset}`).toBe(200);
    expect(messages.map((message) => message.text)).toEqual(['within 300', 'within 200', 'within -200', 'within -300']);

    const refused = logs.filter((line) => line.startsWith('slack: request refused'));
    expect(refused).toEqual([
      "slack: request refused: X-Slack-Request-Timestamp is more than five minutes in the future (301 s ahead of this machine's clock; is either clock wrong?)",
      "slack: request refused: X-Slack-Request-Timestamp is more than five minutes old (stale: 301 s behind this machine's clock; a replay, or a clock is wrong)",
    ]);
    expect(logs.join('\n')).not.toContain(slack.signingSecret);
    expect(logs.join('\n')).not.toMatch(/v0=[0-9a-f]{8}/);
  });
});

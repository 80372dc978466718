/**
 * Slack's request signing: `X-Slack-Signature` is `v0=` + hex HMAC-SHA256 of
 * `v0:<X-Slack-Request-Timestamp>:<raw body>` with the app's signing secret. bolt's
 * `verifySlackRequest` compares in constant time and refuses timestamps more than five minutes
 * old (replays); the clock is the adapter's, so tests can move it.
 */
import { verifySlackRequest } from '@slack/bolt';

/** Why a request is refused, or undefined when it is Slack's. */
export function refusalOf(rawBody: string, headers: Headers, signingSecret: string, nowMs: number): string | undefined {
  const signature = headers.get('x-slack-signature');
  const timestamp = headers.get('x-slack-request-timestamp');
  if (!signature || !timestamp) return 'missing X-Slack-Signature or X-Slack-Request-Timestamp';
  if (!/^\d{1,12}$/.test(timestamp)) return 'malformed X-Slack-Request-Timestamp';
  try {
    verifySlackRequest({ signingSecret, body: rawBody, headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': Number(timestamp) }, nowMilliseconds: nowMs });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

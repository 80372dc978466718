/**
 * Slack's request signing: `X-Slack-Signature` is `v0=` + hex HMAC-SHA256 of
 * `v0:<X-Slack-Request-Timestamp>:<raw body>` with the app's signing secret. bolt's
 * `verifySlackRequest` compares in constant time and refuses timestamps more than five minutes
 * old (replays); timestamps more than five minutes ahead are refused here. The clock is the
 * adapter's, so tests can move it.
 */
import { verifySlackRequest } from '@slack/bolt';

/** How far a request's timestamp may be from this machine's clock, either way (Slack's own rule). */
const maxClockSkewMs = 5 * 60 * 1000;

/** Why a request is refused, or undefined when it is Slack's. */
export function refusalOf(rawBody: string, headers: Headers, signingSecret: string, nowMs: number): string | undefined {
  const signature = headers.get('x-slack-signature');
  const timestamp = headers.get('x-slack-request-timestamp');
  if (!signature || !timestamp) return 'missing X-Slack-Signature or X-Slack-Request-Timestamp';
  if (!/^\d{1,12}$/.test(timestamp)) return 'malformed X-Slack-Request-Timestamp';
  // bolt refuses timestamps more than five minutes old; one as far in the future is no better.
  if (Number(timestamp) * 1000 > nowMs + maxClockSkewMs) return 'X-Slack-Request-Timestamp is more than five minutes in the future';
  try {
    verifySlackRequest({ signingSecret, body: rawBody, headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': Number(timestamp) }, nowMilliseconds: nowMs });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

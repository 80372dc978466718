/**
 * Slack's request signing: `X-Slack-Signature` is `v0=` + hex HMAC-SHA256 of
 * `v0:<X-Slack-Request-Timestamp>:<raw body>` with the app's signing secret. The timestamp must be
 * within five minutes of this machine's clock either way: older is a replay, and bolt's
 * `verifySlackRequest` refuses only that side, while a timestamp far ahead would let a captured
 * request be replayed until its time came. bolt then compares the signature in constant time. The
 * clock is the adapter's, so tests can move it.
 */
import { verifySlackRequest } from '@slack/bolt';

/** How far a request's timestamp may be from this machine's clock, either way, in seconds (Slack's own rule). */
export const maxClockSkewSeconds = 5 * 60;

/**
 * Why a request is refused, or undefined when it is Slack's. The reasons name headers and how far
 * the clocks differ, never the signature or the secret, so they can be logged.
 *
 * @example
 * const refusal = refusalOf(rawBody, request.headers, signingSecret, Date.now());
 * if (refusal) return new Response('invalid signature', { status: 401 });
 */
export function refusalOf(rawBody: string, headers: Headers, signingSecret: string, nowMs: number): string | undefined {
  const signature = headers.get('x-slack-signature');
  const timestamp = headers.get('x-slack-request-timestamp');
  if (!signature || !timestamp) return 'missing X-Slack-Signature or X-Slack-Request-Timestamp';
  if (!/^\d{1,12}$/.test(timestamp)) return 'malformed X-Slack-Request-Timestamp';
  const skewRefusal = clockSkewRefusal(Number(timestamp), nowMs);
  if (skewRefusal) return skewRefusal;
  try {
    verifySlackRequest({ signingSecret, body: rawBody, headers: { 'x-slack-signature': signature, 'x-slack-request-timestamp': Number(timestamp) }, nowMilliseconds: nowMs });
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Why a request timestamp (seconds) is too far from `nowMs`, or undefined when it is near enough. */
function clockSkewRefusal(timestampSeconds: number, nowMs: number): string | undefined {
  // Whole seconds, as bolt counts: exactly five minutes either way still passes.
  const skew = timestampSeconds - Math.floor(nowMs / 1000);
  if (skew > maxClockSkewSeconds) {
    return `X-Slack-Request-Timestamp is more than five minutes in the future (${skew} s ahead of this machine's clock; is either clock wrong?)`;
  }
  if (skew < -maxClockSkewSeconds) {
    return `X-Slack-Request-Timestamp is more than five minutes old (stale: ${-skew} s behind this machine's clock; a replay, or a clock is wrong)`;
  }
  return undefined;
}

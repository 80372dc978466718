/**
 * Slack's request signing on Workers, by the same rules as the Node channel
 * (`src/channels/slack/verify-request.ts`), whose verifier cannot be reused here: it calls bolt's
 * `verifySlackRequest`, and importing bolt fails in workerd. `X-Slack-Signature` is `v0=` + hex
 * HMAC-SHA256 of `v0:<X-Slack-Request-Timestamp>:<raw body>` with the signing secret; the
 * timestamp must be within five minutes of the clock either way (older is a replay; far ahead
 * would let a captured request be replayed later); the signatures are compared in constant time.
 * The HMAC is taken over the body's bytes as they came, never a decoded copy.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far a request's timestamp may be from the clock, either way, in seconds (Slack's rule). */
const maxClockSkewSeconds = 5 * 60;

/**
 * Why a request is refused, or undefined when Slack signed it. The reasons name headers and how
 * far the clocks differ, never the signature or the secret, so they can be logged.
 *
 * @example
 * if (slackSignatureRefusal(bytes, request.headers, env.SLACK_SIGNING_SECRET, Date.now())) return new Response('invalid signature', { status: 401 });
 */
export function slackSignatureRefusal(body: Uint8Array, headers: Headers, signingSecret: string, nowMs: number): string | undefined {
  const signature = headers.get('x-slack-signature');
  const timestamp = headers.get('x-slack-request-timestamp');
  if (!signature || !timestamp) return 'missing X-Slack-Signature or X-Slack-Request-Timestamp';
  if (!/^\d{1,12}$/.test(timestamp)) return 'malformed X-Slack-Request-Timestamp';
  // Whole seconds, as the Node channel counts: exactly five minutes either way still passes.
  const skew = Number(timestamp) - Math.floor(nowMs / 1000);
  if (skew > maxClockSkewSeconds) return `X-Slack-Request-Timestamp is more than five minutes in the future (${skew} s ahead of this clock)`;
  if (skew < -maxClockSkewSeconds) return `X-Slack-Request-Timestamp is more than five minutes old (${-skew} s behind this clock: a replay, or a clock is wrong)`;
  const expected = Buffer.from(`v0=${createHmac('sha256', signingSecret).update(`v0:${timestamp}:`).update(body).digest('hex')}`);
  const given = Buffer.from(signature);
  // The expected length is public (v0= and 64 hex digits): checking it first leaks nothing.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'signature mismatch';
  return undefined;
}

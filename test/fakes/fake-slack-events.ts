/**
 * What Slack posts to an app, built and signed like Slack does: Events API envelopes
 * (`event_callback` with `event_id`, `team_id`, `event`), `block_actions` payloads (a form with
 * one `payload` field) and slash command forms, each signed with
 * `v0=HMAC-SHA256(secret, "v0:<ts>:<raw body>")` in `X-Slack-Signature` and sent with
 * `X-Slack-Request-Timestamp`, optionally as a retry (`X-Slack-Retry-Num`), with a wrong
 * signature or a stale timestamp.
 */
import { createHmac } from 'node:crypto';

/** A request body as Slack sends it. */
export type SlackRequest = { kind: 'json'; body: Record<string, unknown> } | { kind: 'form'; fields: Record<string, string> };

/** How to sign and send one request. */
export interface SendOptions {
  signingSecret: string;
  /** The request timestamp in seconds (default now); older than five minutes is stale. */
  timestampSeconds?: number;
  /** Sign with this secret instead (a forged request). */
  signWith?: string;
  /** Leave the signature header out. */
  unsigned?: boolean;
  /** Send as Slack's n-th retry, with this reason (default `http_timeout`). */
  retryNum?: number;
  retryReason?: string;
  /** Give up on the answer after this many ms (Slack waits 3 s, then retries with `http_timeout`); the promise rejects. */
  timeoutMs?: number;
}

/** What the app answered. */
export interface SendResult {
  status: number;
  body: string;
  contentType: string | null;
}

/** The raw body and content type of a request. */
export function encodeRequest(request: SlackRequest): { rawBody: string; contentType: string } {
  if (request.kind === 'json') return { rawBody: JSON.stringify(request.body), contentType: 'application/json' };
  return { rawBody: new URLSearchParams(request.fields).toString(), contentType: 'application/x-www-form-urlencoded' };
}

/** Slack's signature of a raw body at a timestamp. */
export function signature(secret: string, timestampSeconds: number, rawBody: string): string {
  return `v0=${createHmac('sha256', secret).update(`v0:${timestampSeconds}:${rawBody}`).digest('hex')}`;
}

/** Signs and POSTs a request to `url` as Slack would. */
export async function sendSigned(url: string, request: SlackRequest, options: SendOptions): Promise<SendResult> {
  const { rawBody, contentType } = encodeRequest(request);
  const timestamp = options.timestampSeconds ?? Math.floor(Date.now() / 1000);
  const headers: Record<string, string> = {
    'content-type': contentType,
    'x-slack-request-timestamp': String(timestamp),
    'user-agent': 'Slackbot 1.0 (+https://api.slack.com/robots)',
  };
  if (!options.unsigned) headers['x-slack-signature'] = signature(options.signWith ?? options.signingSecret, timestamp, rawBody);
  if (options.retryNum !== undefined) {
    headers['x-slack-retry-num'] = String(options.retryNum);
    headers['x-slack-retry-reason'] = options.retryReason ?? 'http_timeout';
  }
  const response = await fetch(url, { method: 'POST', headers, body: rawBody, ...(options.timeoutMs !== undefined && { signal: AbortSignal.timeout(options.timeoutMs) }) });
  return { status: response.status, body: await response.text(), contentType: response.headers.get('content-type') };
}

/** The Events API envelope of one event. */
export function eventEnvelope(event: Record<string, unknown>, ids: { eventId: string; teamId: string; appId: string; botUserId: string }): SlackRequest {
  return {
    kind: 'json',
    body: {
      token: 'legacy-verification-token',
      team_id: ids.teamId,
      api_app_id: ids.appId,
      event,
      type: 'event_callback',
      event_id: ids.eventId,
      event_time: Math.floor(Number(event.event_ts ?? event.ts ?? Date.now() / 1000)),
      authorizations: [{ enterprise_id: null, team_id: ids.teamId, user_id: ids.botUserId, is_bot: true, is_enterprise_install: false }],
      is_ext_shared_channel: false,
      event_context: `4-${ids.eventId}`,
    },
  };
}

/** The `url_verification` challenge Slack sends when the request URL is configured. */
export function urlVerification(challenge: string): SlackRequest {
  return { kind: 'json', body: { token: 'legacy-verification-token', challenge, type: 'url_verification' } };
}

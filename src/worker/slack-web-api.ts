/**
 * Slack's Web API over fetch, for Workers: the Node channel's client (@slack/web-api, through
 * bolt) does not load in workerd (bolt pulls in undici and express). A method is POSTed as JSON
 * with the bot token as a Bearer header. Slack answers HTTP 200 with `{ ok: false, error }` for
 * most failures (final, except its own transient ones), 429 with `Retry-After` for a rate limit,
 * 5xx when it is down: all become {@link DeliveryError}s, as on Node (`slack-errors.ts`).
 */
import { DeliveryError } from '../channels/types.ts';
import { failedAnswer, fetchForDelivery, retryAfterMsOf, scrubbed, type PlatformCall } from './delivery-fetch.ts';

/** Where the Web API is unless `SLACK_API_URL` says otherwise. */
export const defaultSlackApiUrl = 'https://slack.com/api';

/** Slack `error` codes of a call that may succeed when tried again (as `slack-errors.ts` on Node). */
const transientErrors = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout', 'team_added_to_org']);

/** A successful Web API answer. */
export type SlackAnswer = { ok: true } & Record<string, unknown>;

/** Calls Web API methods for one bot. */
export type SlackApi = (method: string, params: Record<string, unknown>) => Promise<SlackAnswer>;

/**
 * A {@link SlackApi} for `token` at `apiUrl` (default {@link defaultSlackApiUrl}; a trailing
 * slash is fine, as the Node channel's `slackApiUrl` has one).
 *
 * @example
 * const slack = createSlackApi({ token: env.SLACK_BOT_TOKEN, apiUrl: env.SLACK_API_URL });
 * const { ts } = await slack('chat.postMessage', { channel: 'C1', text: 'hi' });
 */
export function createSlackApi(options: { token: string; apiUrl?: string }): SlackApi {
  const base = (options.apiUrl ?? defaultSlackApiUrl).replace(/\/+$/, '');
  return async (method, params) => {
    const call: PlatformCall = { platform: 'Slack', operation: method, secrets: [options.token] };
    const response = await fetchForDelivery(call, `${base}/${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${options.token}`, 'content-type': 'application/json; charset=utf-8' },
      body: JSON.stringify(params),
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      throw failedAnswer(call, response.status, response.status === 429 ? 'rate limited' : '', retryAfterMsOf(response));
    }
    let answer: { ok?: unknown; error?: unknown };
    try {
      answer = (await response.json()) as { ok?: unknown; error?: unknown };
    } catch {
      throw new DeliveryError(`Slack ${method} failed: the answer is not JSON`, { retryable: true });
    }
    if (answer.ok === true) return answer as SlackAnswer;
    const error = typeof answer.error === 'string' ? answer.error : 'unknown_error';
    throw new DeliveryError(scrubbed(call, `Slack ${method} failed: ${error}`), { retryable: transientErrors.has(error), cause: { slackError: error } });
  };
}

/** The Web API's `error` code of a failed call (`message_not_found`), when Slack answered one. */
export function slackErrorOf(error: unknown): string | undefined {
  const cause = error instanceof DeliveryError ? (error.cause as { slackError?: unknown } | undefined) : undefined;
  return typeof cause?.slackError === 'string' ? cause.slackError : undefined;
}
